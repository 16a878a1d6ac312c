import { type JSX, lazy, Suspense, useEffect } from 'react';
import { ErrorBox, Loading } from '../components/Feedback.tsx';
import { Setup } from '../features/accounts/Setup.tsx';
import { SignIn } from '../features/accounts/SignIn.tsx';
import { CheckPage } from '../features/checks/CheckPage.tsx';
import { Overview } from '../features/overview/Overview.tsx';
import { ServicePage } from '../features/services/ServicePage.tsx';
import { match, navigate, useLocation } from '../lib/router.tsx';
import { useAuth } from '../lib/session.ts';
import { Layout } from './Layout.tsx';
import { NotFound } from './NotFound.tsx';

// Rarely used screens load on first visit and keep the first download small.
const CheckForm = lazy(() => import('../features/checks/form/CheckForm.tsx'));
const Users = lazy(() => import('../features/accounts/Users.tsx'));
const Tokens = lazy(() => import('../features/accounts/Tokens.tsx'));
const IncidentsList = lazy(() => import('../features/incidents/IncidentsList.tsx'));
const IncidentPage = lazy(() => import('../features/incidents/IncidentPage.tsx'));
const Channels = lazy(() => import('../features/notifications/Channels.tsx'));
const Windows = lazy(() => import('../features/windows/Windows.tsx'));
const Watchdog = lazy(() => import('../features/watchdog/Watchdog.tsx'));
const HostsList = lazy(() => import('../features/hosts/HostsList.tsx'));
const HostPage = lazy(() => import('../features/hosts/HostPage.tsx'));
const AnalyticsPage = lazy(() => import('../features/analytics/AnalyticsPage.tsx'));

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
  ['/incidents', () => <IncidentsList />],
  ['/incidents/:id', (p) => <IncidentPage id={p.id!} />],
  ['/hosts', () => <HostsList />],
  ['/hosts/:name', (p) => <HostPage name={p.name!} />],
  ['/analytics', () => <AnalyticsPage />],
  ['/settings', () => <Channels />],
  ['/settings/channels', () => <Channels />],
  ['/settings/windows', () => <Windows />],
  ['/settings/watchdog', () => <Watchdog />],
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
