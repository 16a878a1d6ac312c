import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { AuthState } from '../../../../protocol/accounts.ts';
import { Field } from '../../components/Field.tsx';
import { ApiError, post } from '../../lib/api.ts';
import { useFocusOnMount } from '../../lib/focus.ts';
import { useForm } from '../../lib/form.ts';
import { useLocation } from '../../lib/router.tsx';
import { authKey } from '../../lib/session.ts';
import './accounts.css';

/** A failed sign-in in one sentence: a wrong password reads the same as an unknown address. */
function signInMessage(error: unknown): string {
  if (error instanceof ApiError && (error.status === 401 || error.status === 403))
    return 'Wrong email or password.';
  if (error instanceof ApiError && error.retryAfter)
    return `${error.text} Try again in ${error.retryAfter} s.`;
  return error instanceof ApiError ? error.text : String(error);
}

/** Sign-in by password and by the OpenID Connect providers the server lists. */
export function SignIn({ auth }: { auth: AuthState }) {
  const client = useQueryClient();
  const { query } = useLocation();
  const first = useFocusOnMount<HTMLInputElement>();
  // A provider's sign-in that failed comes back as `?error=`; it shows until the next try.
  const [providerError, setProviderError] = useState(query.get('error'));
  const form = useForm(
    async (data) => {
      setProviderError(null);
      await post('/auth/login', { email: String(data.get('email')), password: String(data.get('password')) });
      await client.invalidateQueries({ queryKey: authKey });
    },
    { scope: 'signin' },
  );
  const error = form.formError ? signInMessage(form.formError) : providerError;

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
          <form onSubmit={form.onSubmit}>
            <Field {...form.field('email')} label="Email">
              <input {...form.control('email')} type="email" required autoComplete="username" ref={first} />
            </Field>
            <Field {...form.field('password')} label="Password">
              <input {...form.control('password')} type="password" required autoComplete="current-password" />
            </Field>
            <button className="primary" type="submit" disabled={form.busy}>
              {form.busy ? 'Signing in…' : 'Sign in'}
            </button>
          </form>
        ) : null}
        {auth.password && auth.providers.length > 0 ? <div className="divider">or</div> : null}
        {auth.providers.length > 0 ? (
          <div className="providers">
            {auth.providers.map((p) => (
              <a key={p.name} className="button" href={p.url}>
                Continue with {p.label}
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
