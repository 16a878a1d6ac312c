import { Link, useLocation } from '../lib/router.tsx';

const pages = [
  { href: '/settings/channels', label: 'Channels' },
  { href: '/settings/windows', label: 'Silences and maintenance' },
  { href: '/settings/watchdog', label: 'Watchdog' },
];

/** The tabs of the settings screens: notification channels, silences and maintenance, the watchdog. */
export function SettingsNav() {
  const { path } = useLocation();
  return (
    <nav className="tabs" aria-label="Settings">
      {pages.map((p) => (
        <Link key={p.href} href={p.href} aria-current={path === p.href ? 'page' : undefined}>
          {p.label}
        </Link>
      ))}
    </nav>
  );
}
