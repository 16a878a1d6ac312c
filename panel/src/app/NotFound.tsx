import { Link } from '../lib/router.tsx';

export function NotFound() {
  return (
    <div className="empty">
      <h1>Page not found</h1>
      <p>There is nothing at this address.</p>
      <Link href="/">Go to the overview</Link>
    </div>
  );
}
