import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Field } from '../../components/Field.tsx';
import { ApiError, post } from '../../lib/api.ts';
import { useFocusOnMount } from '../../lib/focus.ts';
import { useLocation } from '../../lib/router.tsx';
import { authKey } from '../../lib/session.ts';
import type { AuthState } from '../../lib/types.ts';

/** Sign-in by password and by the OpenID Connect providers the server lists. */
export function SignIn({ auth }: { auth: AuthState }) {
  const client = useQueryClient();
  const { query } = useLocation();
  const [busy, setBusy] = useState(false);
  const first = useFocusOnMount<HTMLInputElement>();
  const [error, setError] = useState<string | null>(query.get('error'));

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      await post('/auth/login', { email: String(form.get('email')), password: String(form.get('password')) });
      await client.invalidateQueries({ queryKey: authKey });
    } catch (e) {
      setBusy(false);
      if (e instanceof ApiError && (e.status === 401 || e.status === 403))
        setError('Wrong email or password.');
      else if (e instanceof ApiError && e.retryAfter) setError(`${e.text} Try again in ${e.retryAfter} s.`);
      else setError(e instanceof ApiError ? e.text : String(e));
    }
  };

  return (
    <div className="auth-page">
      <div className="auth-card">
        <h1>Sign in to mon</h1>
        <p className="lead">Monitoring for your services and hosts.</p>
        {error ? (
          <div className="alert error" role="alert">
            {error}
          </div>
        ) : null}
        {auth.password ? (
          <form onSubmit={(e) => void submit(e)}>
            <Field id="signin-email" label="Email">
              <input
                id="signin-email"
                name="email"
                type="email"
                required
                autoComplete="username"
                ref={first}
              />
            </Field>
            <Field id="signin-password" label="Password">
              <input
                id="signin-password"
                name="password"
                type="password"
                required
                autoComplete="current-password"
              />
            </Field>
            <button className="primary" type="submit" disabled={busy}>
              {busy ? 'Signing in…' : 'Sign in'}
            </button>
          </form>
        ) : null}
        {auth.password && auth.providers.length > 0 ? <div className="divider">or</div> : null}
        {auth.providers.length > 0 ? (
          <div className="providers">
            {auth.providers.map((p) => (
              <a key={p.name} className="button" href={p.url}>
                Continue with {p.label ?? p.name}
              </a>
            ))}
          </div>
        ) : null}
        {!auth.password && auth.providers.length === 0 ? (
          <p className="muted">
            No sign-in method is enabled. Sign-in works through the proxy in front of mon
            {auth.proxy ? '' : ', or after an administrator enables password or OpenID Connect sign-in'}.
          </p>
        ) : null}
      </div>
    </div>
  );
}
