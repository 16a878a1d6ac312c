import { useQueryClient } from '@tanstack/react-query';
import type { AuthState } from '../../../../protocol/accounts.ts';
import { ErrorBox } from '../../components/Feedback.tsx';
import { Field } from '../../components/Field.tsx';
import { get, post } from '../../lib/api.ts';
import { useFocusOnMount } from '../../lib/focus.ts';
import { useForm } from '../../lib/form.ts';
import { authKey } from '../../lib/session.ts';

/** First account: the setup token from the server's log (or `setup-token` in the data directory). */
export function Setup() {
  const client = useQueryClient();
  const first = useFocusOnMount<HTMLInputElement>();
  const form = useForm(
    async (data) => {
      const email = String(data.get('email'));
      const password = String(data.get('password'));
      await post('/auth/setup', { token: String(data.get('token')).trim(), email, password });
      // Setup may or may not sign in by itself; sign in when it did not.
      const auth = await get<AuthState>('/auth');
      if (!auth.user) await post('/auth/login', { email, password });
      await client.invalidateQueries({ queryKey: authKey });
    },
    { scope: 'setup', fields: ['token', 'email', 'password'] },
  );

  return (
    <div className="auth-page">
      <form className="auth-card" onSubmit={form.onSubmit}>
        <h1>Welcome to mon</h1>
        <p className="lead">
          Create the first account. It is an administrator and can add more people later.
        </p>
        <Field
          {...form.field('token')}
          label="Setup token"
          hint={
            <>
              Printed in the server's log on first start, and kept in the file <code>setup-token</code> of the
              data directory.
            </>
          }
        >
          <input
            {...form.control('token', { hint: true })}
            required
            autoComplete="off"
            spellCheck={false}
            ref={first}
          />
        </Field>
        <Field {...form.field('email')} label="Email">
          <input {...form.control('email')} type="email" required autoComplete="username" />
        </Field>
        <Field {...form.field('password')} label="Password">
          <input {...form.control('password')} type="password" required autoComplete="new-password" />
        </Field>
        <ErrorBox error={form.formError} title="Setup failed." />
        <button className="primary" type="submit" disabled={form.busy}>
          {form.busy ? 'Creating…' : 'Create account'}
        </button>
      </form>
    </div>
  );
}
