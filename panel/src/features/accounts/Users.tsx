import { useEffect, useState } from 'react';
import type { Role } from '../../../../protocol/accounts.ts';
import { Confirm } from '../../components/Confirm.tsx';
import { ErrorBox, Loading, ReadError } from '../../components/Feedback.tsx';
import { Field } from '../../components/Field.tsx';
import { FormCard } from '../../components/FormCard.tsx';
import { ActionsHeader, Table } from '../../components/Table.tsx';
import { post } from '../../lib/api.ts';
import { useFocusOnMount } from '../../lib/focus.ts';
import { useForm } from '../../lib/form.ts';
import { formatWhen } from '../../lib/format.ts';
import { useAuth } from '../../lib/session.ts';
import { changeUser, useChangeRole, useRefreshUsers, useRemoveUser, useUsers } from './queries.ts';

const sourceText = (source: string) =>
  source === 'setup'
    ? 'first account'
    : source === 'admin'
      ? 'added here'
      : source.startsWith('oidc:')
        ? `via ${source.slice(5)}`
        : source === 'proxy'
          ? 'via proxy'
          : source;

/** Accounts (admins only): add, change role, set a password, remove. */
export default function Users() {
  const me = useAuth().data?.user;
  const users = useUsers();
  const change = useChangeRole();
  const remove = useRemoveUser();
  const [confirm, setConfirm] = useState<string | null>(null);
  const [passwordFor, setPasswordFor] = useState<string | null>(null);
  useEffect(() => {
    document.title = 'Users · mon';
  }, []);

  if (users.isPending) return <Loading />;
  if (users.isError) return <ReadError error={users.error} />;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Users</h1>
          <p className="sub">Everyone sees every service and host. Viewers cannot change anything.</p>
        </div>
      </div>
      <ErrorBox error={change.error ?? remove.error} />
      <section className="card">
        <Table
          head={
            <>
              <th>Email</th>
              <th>Role</th>
              <th>Sign-in</th>
              <th>Last sign-in</th>
              <ActionsHeader />
            </>
          }
        >
          {users.data.users.map((u) => (
            <tr key={u.id}>
              <td className="name-cell">
                {u.email}
                {me?.email === u.email ? <span className="muted small"> (you)</span> : null}
              </td>
              <td>
                <select
                  aria-label={`Role of ${u.email}`}
                  value={u.role}
                  style={{ width: 'auto' }}
                  disabled={change.isPending}
                  onChange={(e) => change.mutate({ id: u.id, role: e.target.value as Role })}
                >
                  <option value="admin">admin</option>
                  <option value="viewer">viewer</option>
                </select>
              </td>
              <td className="small">
                {u.hasPassword ? 'password' : 'no password'} · {sourceText(u.source)}
              </td>
              <td className="small">
                {u.lastSignInAt ? formatWhen(u.lastSignInAt) : <span className="muted">never</span>}
              </td>
              <td className="num">
                {passwordFor === u.id ? (
                  <PasswordForm id={u.id} email={u.email} onDone={() => setPasswordFor(null)} />
                ) : confirm === u.id ? (
                  <Confirm
                    question={`Remove ${u.email}?`}
                    action="Remove"
                    busy={remove.isPending}
                    onConfirm={() => remove.mutate(u.id, { onSettled: () => setConfirm(null) })}
                    trigger={`remove-${u.id}`}
                    onCancel={() => setConfirm(null)}
                  />
                ) : (
                  <span className="actions" style={{ justifyContent: 'flex-end' }}>
                    <button type="button" className="link-button" onClick={() => setPasswordFor(u.id)}>
                      Set password
                    </button>
                    <button
                      type="button"
                      id={`remove-${u.id}`}
                      className="link-button danger"
                      onClick={() => setConfirm(u.id)}
                    >
                      Remove
                    </button>
                  </span>
                )}
              </td>
            </tr>
          ))}
        </Table>
      </section>
      <AddUser />
    </>
  );
}

/** A new password for one person, in the row: Save sets it (and signs them out everywhere). */
function PasswordForm({ id, email, onDone }: { id: string; email: string; onDone: () => void }) {
  const refresh = useRefreshUsers();
  const form = useForm(
    async (data) => {
      await changeUser(id, { password: String(data.get('password')) });
      await refresh();
      onDone();
    },
    { scope: 'set-password', fields: ['password'] },
  );
  const input = useFocusOnMount<HTMLInputElement>();
  const error = form.field('password').error;
  return (
    <form className="confirm" style={{ justifyContent: 'flex-end' }} onSubmit={form.onSubmit}>
      <input
        {...form.control('password')}
        type="password"
        aria-label={`New password for ${email}`}
        autoComplete="new-password"
        style={{ width: '14rem' }}
        ref={input}
      />
      <button type="submit" className="primary" disabled={form.busy}>
        Save
      </button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
      {error ? (
        <span className="field-error" id={`${form.control('password').id}-error`} role="alert">
          {error}
        </span>
      ) : null}
      <ErrorBox error={form.formError} />
    </form>
  );
}

function AddUser() {
  const refresh = useRefreshUsers();
  const form = useForm(
    async (data) => {
      const password = String(data.get('password'));
      await post('/users', {
        email: String(data.get('email')).trim(),
        role: String(data.get('role')),
        password: password === '' ? null : password,
      });
      await refresh();
    },
    { scope: 'new-user', fields: ['email', 'password'], reset: true },
  );
  return (
    <FormCard title="Add a user" action="Add user" form={form}>
      <Field {...form.field('email')} label="Email">
        <input {...form.control('email')} type="email" required />
      </Field>
      <Field {...form.field('role')} label="Role">
        <select {...form.control('role')} defaultValue="viewer">
          <option value="viewer">viewer: reads only</option>
          <option value="admin">admin: changes everything</option>
        </select>
      </Field>
      <Field
        {...form.field('password')}
        label="Password"
        hint="Empty: signs in only through a provider or the proxy."
      >
        <input {...form.control('password', { hint: true })} type="password" autoComplete="new-password" />
      </Field>
    </FormCard>
  );
}
