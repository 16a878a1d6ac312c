import { type JSX, lazy, Suspense, useEffect } from 'react';
import { ErrorBox, Loading } from '../components/Feedback.tsx';
import { match, navigate, useLocation } from '../lib/router.tsx';
import { useAuth } from '../lib/session.ts';
import { CheckPage } from '../screens/check/CheckPage.tsx';
import { Overview } from '../screens/overview/Overview.tsx';
import { ServicePage } from '../screens/service/ServicePage.tsx';
import { Setup } from '../screens/setup/Setup.tsx';
import { SignIn } from '../screens/signin/SignIn.tsx';
import { Layout } from './Layout.tsx';
import { NotFound } from './NotFound.tsx';

// Rarely used screens load on first visit and keep the first download small.
const CheckForm = lazy(() => import('../screens/checkform/CheckForm.tsx'));
const Users = lazy(() => import('../screens/users/Users.tsx'));
const Tokens = lazy(() => import('../screens/tokens/Tokens.tsx'));

export function App() {
  const auth = useAuth();
  const { path } = useLocation();

  const signedIn = !!auth.data?.user;
  useEffect(() => {
    if (signedIn && (path === '/sign-in' || path === '/setup')) navigate('/', { replace: true });
  }, [signedIn, path]);

  if (auth.isPending) return null;
  if (auth.isError) {
    return (
      <div className="auth-page">
        <div className="auth-card">
          <h1>mon</h1>
          <ErrorBox error={auth.error} title="The server did not answer." />
          <button type="button" onClick={() => void auth.refetch()}>
            Try again
          </button>
        </div>
      </div>
    );
  }
  if (auth.data.needsSetup) return <Setup />;
  if (!auth.data.user) return <SignIn auth={auth.data} />;

  return (
    <Layout user={auth.data.user}>
      <Suspense fallback={<Loading />}>
        <Screen path={path} />
      </Suspense>
    </Layout>
  );
}

/** Paths and their screens; the first match wins. */
const routes: [string, (p: Record<string, string>) => JSX.Element][] = [
  ['/', () => <Overview />],
  ['/sign-in', () => <Overview />],
  ['/setup', () => <Overview />],
  ['/services/:name', (p) => <ServicePage name={p.name!} />],
  ['/checks/new', () => <CheckForm />],
  ['/checks/:id/edit', (p) => <CheckForm id={p.id!} />],
  ['/checks/:id', (p) => <CheckPage id={p.id!} />],
  ['/users', () => <Users />],
  ['/tokens', () => <Tokens />],
];

function Screen({ path }: { path: string }) {
  for (const [pattern, render] of routes) {
    const params = match(pattern, path);
    if (params) return render(params);
  }
  return <NotFound />;
}
