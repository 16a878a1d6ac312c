import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import type { AuthState, Role } from '../../../protocol/accounts.ts';
import type { ConfigStatus } from '../../../protocol/config.ts';
import { get, post } from '../lib/api.ts';
import { Link, useLocation } from '../lib/router.tsx';
import { authKey } from '../lib/session.ts';
import { useTheme } from '../lib/theme.ts';
import { connectLive, type LiveState } from './live.ts';

type Props = { user: { email: string; role: Role }; children: ReactNode };

/** The frame of every signed-in screen: navigation, live state, theme, account, config-file error. */
export function Layout({ user, children }: Props) {
  const client = useQueryClient();
  const [live, setLive] = useState<LiveState>('connecting');
  useEffect(() => connectLive(client, setLive), [client]);
  const { path } = useLocation();
  const [theme, cycleTheme] = useTheme();
  const admin = user.role === 'admin';
  const bar = useTopbarHeight();

  const signOut = async () => {
    try {
      await post('/auth/logout');
    } finally {
      // Forget everything read as this person, then show the sign-in page.
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== authKey[0] });
      client.setQueryData<AuthState>(authKey, (old) => (old ? { ...old, user: null } : old));
      await client.invalidateQueries({ queryKey: authKey });
    }
  };

  const navLink = (href: string, label: string, active: boolean) => (
    <Link href={href} aria-current={active ? 'page' : undefined}>
      {label}
    </Link>
  );

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar" ref={bar}>
        <Link className="brand" href="/">
          <span className="brand-dot" aria-hidden="true" />
          mon
        </Link>
        <nav className="nav" aria-label="Main">
          {navLink(
            '/',
            'Overview',
            path === '/' || path.startsWith('/services') || path.startsWith('/checks'),
          )}
          {navLink('/incidents', 'Incidents', path.startsWith('/incidents'))}
          {navLink('/hosts', 'Hosts', path.startsWith('/hosts'))}
          {navLink('/analytics', 'Analytics', path.startsWith('/analytics'))}
          {navLink('/settings/channels', 'Settings', path.startsWith('/settings'))}
          {admin ? navLink('/users', 'Users', path === '/users') : null}
          {admin ? navLink('/tokens', 'Tokens', path === '/tokens') : null}
        </nav>
        <div className="topbar-right">
          <span
            className="live"
            data-state={live}
            title={live === 'live' ? 'Updates arrive as they happen' : 'Live updates are reconnecting'}
          >
            {live === 'live' ? 'Live' : live === 'connecting' ? 'Connecting' : 'Offline'}
          </span>
          <button
            type="button"
            className="icon-button"
            onClick={cycleTheme}
            aria-label={`Theme: ${theme}. Change theme`}
            title={`Theme: ${theme}`}
          >
            {theme === 'dark' ? '☾' : theme === 'light' ? '☀' : '◐'}
          </button>
          <span
            className="who muted small"
            title={`${user.email}: ${user.role === 'admin' ? 'administrator' : 'viewer, read only'}`}
          >
            {user.email}
            {admin ? null : (
              <span className="badge" style={{ marginLeft: '0.4rem' }}>
                viewer
              </span>
            )}
          </span>
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        <ConfigError />
        {children}
      </main>
    </>
  );
}

/**
 * Keeps `--topbar-height` at the sticky bar's height, which grows when it wraps: the page's
 * scroll-padding-top (styles/theme.css) keeps what the keyboard focuses below the bar.
 */
function useTopbarHeight() {
  const bar = useRef<HTMLElement>(null);
  useEffect(() => {
    const el = bar.current;
    if (!el) return;
    const root = document.documentElement.style;
    const observer = new ResizeObserver(() => root.setProperty('--topbar-height', `${el.offsetHeight}px`));
    observer.observe(el);
    return () => {
      observer.disconnect();
      root.removeProperty('--topbar-height');
    };
  }, []);
  return bar;
}

/** The config file's error, when the last save of mon.toml did not load. A save sends `*` on the stream. */
function ConfigError() {
  const status = useQuery({
    queryKey: ['config-status'],
    queryFn: () => get<ConfigStatus>('/config/status'),
    retry: false,
  });
  const error = status.data?.error;
  if (!error) return null;
  return (
    <div className="alert error" role="alert">
      <strong>
        {status.data?.inForce === 'empty'
          ? 'mon.toml has an error and no earlier version loads; mon runs without it until it is fixed.'
          : 'mon.toml has an error; the last good version stays in effect.'}
      </strong>
      <pre>{error}</pre>
    </div>
  );
}
