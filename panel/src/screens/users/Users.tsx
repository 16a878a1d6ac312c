import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Confirm } from '../../components/Confirm.tsx';
import { ErrorBox, Loading, ReadError } from '../../components/Feedback.tsx';
import { Field } from '../../components/Field.tsx';
import { FormCard } from '../../components/FormCard.tsx';
import { Table } from '../../components/Table.tsx';
import { del, enc, get, post, put } from '../../lib/api.ts';
import { useFocusOnMount } from '../../lib/focus.ts';
import { formatWhen } from '../../lib/format.ts';
import { useAuth } from '../../lib/session.ts';
import type { Role } from '../../lib/types.ts';
import { useSubmit } from '../../lib/useSubmit.ts';

type User = {
  id: string;
  email: string;
  role: Role;
  source: string;
  hasPassword: boolean;
  createdAt: number;
  lastSignInAt: number | null;
};

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
  const client = useQueryClient();
  const me = useAuth().data?.user;
  const users = useQuery({ queryKey: ['users'], queryFn: () => get<{ users: User[] }>('/users') });
  const refresh = () => client.invalidateQueries({ queryKey: ['users'] });
  const change = useMutation({
    mutationFn: ({ id, body }: { id: string; body: { role?: Role; password?: string } }) =>
      put(`/users/${enc(id)}`, body),
    onSuccess: refresh,
  });
  const remove = useMutation({ mutationFn: (id: string) => del(`/users/${enc(id)}`), onSuccess: refresh });
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
              <th>
                <span className="sr-only">Actions</span>
              </th>
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
                  onChange={(e) => change.mutate({ id: u.id, body: { role: e.target.value as Role } })}
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
                  <PasswordForm
                    email={u.email}
                    onCancel={() => setPasswordFor(null)}
                    onSave={(password) =>
                      change.mutate(
                        { id: u.id, body: { password } },
                        { onSuccess: () => setPasswordFor(null) },
                      )
                    }
                  />
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
      <AddUser onAdded={refresh} />
    </>
  );
}

function PasswordForm({
  email,
  onSave,
  onCancel,
}: {
  email: string;
  onSave: (p: string) => void;
  onCancel: () => void;
}) {
  const [value, setValue] = useState('');
  const input = useFocusOnMount<HTMLInputElement>();
  return (
    <form
      className="confirm"
      style={{ justifyContent: 'flex-end' }}
      onSubmit={(e) => {
        e.preventDefault();
        onSave(value);
      }}
    >
      <input
        type="password"
        aria-label={`New password for ${email}`}
        autoComplete="new-password"
        value={value}
        onChange={(e) => setValue(e.target.value)}
        style={{ width: '14rem' }}
        ref={input}
      />
      <button type="submit" className="primary">
        Save
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

function AddUser({ onAdded }: { onAdded: () => void }) {
  const submit = useSubmit(
    async (form) => {
      const password = String(form.get('password'));
      await post('/users', {
        email: String(form.get('email')).trim(),
        role: String(form.get('role')),
        password: password === '' ? null : password,
      });
      onAdded();
    },
    ['email', 'password'],
  );
  return (
    <FormCard title="Add a user" action="Add user" submit={submit}>
      <Field id="new-user-email" label="Email" error={submit.fieldError('email')}>
        <input
          id="new-user-email"
          name="email"
          type="email"
          required
          aria-invalid={submit.fieldError('email') ? true : undefined}
        />
      </Field>
      <Field id="new-user-role" label="Role">
        <select id="new-user-role" name="role" defaultValue="viewer">
          <option value="viewer">viewer: reads only</option>
          <option value="admin">admin: changes everything</option>
        </select>
      </Field>
      <Field
        id="new-user-password"
        label="Password"
        hint="Empty: signs in only through a provider or the proxy."
        error={submit.fieldError('password')}
      >
        <input
          id="new-user-password"
          name="password"
          type="password"
          autoComplete="new-password"
          aria-invalid={submit.fieldError('password') ? true : undefined}
        />
      </Field>
    </FormCard>
  );
}
