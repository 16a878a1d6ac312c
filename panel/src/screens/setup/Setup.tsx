import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ErrorBox } from '../../components/Feedback.tsx';
import { Field } from '../../components/Field.tsx';
import { ApiError, get, post } from '../../lib/api.ts';
import { useFocusOnMount } from '../../lib/focus.ts';
import { authKey } from '../../lib/session.ts';
import type { AuthState } from '../../lib/types.ts';

/** First account: the setup token from the server's log (or `setup-token` in the data directory). */
export function Setup() {
  const client = useQueryClient();
  const [busy, setBusy] = useState(false);
  const first = useFocusOnMount<HTMLInputElement>();
  const [error, setError] = useState<unknown>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email'));
    const password = String(form.get('password'));
    setBusy(true);
    setError(null);
    try {
      await post('/auth/setup', { token: String(form.get('token')).trim(), email, password });
      // Setup may or may not sign in by itself; sign in when it did not.
      const auth = await get<AuthState>('/auth');
      if (!auth.user) await post('/auth/login', { email, password });
      await client.invalidateQueries({ queryKey: authKey });
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };

  const field = error instanceof ApiError ? error.field() : null;
  return (
    <div className="auth-page">
      <form className="auth-card" onSubmit={(e) => void submit(e)}>
        <h1>Welcome to mon</h1>
        <p className="lead">
          Create the first account. It is an administrator and can add more people later.
        </p>
        <Field
          id="setup-token"
          label="Setup token"
          hint={
            <>
              Printed in the server's log on first start, and kept in the file <code>setup-token</code> of the
              data directory.
            </>
          }
        >
          <input id="setup-token" name="token" required autoComplete="off" spellCheck={false} ref={first} />
        </Field>
        <Field id="setup-email" label="Email">
          <input id="setup-email" name="email" type="email" required autoComplete="username" />
        </Field>
        <Field id="setup-password" label="Password">
          <input id="setup-password" name="password" type="password" required autoComplete="new-password" />
        </Field>
        {error ? <ErrorBox error={error} title={field ? undefined : 'Setup failed.'} /> : null}
        <button className="primary" type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create account'}
        </button>
      </form>
    </div>
  );
}
