import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Confirm } from '../../components/Confirm.tsx';
import { CopyField } from '../../components/Copy.tsx';
import { ErrorBox, Loading, ReadError } from '../../components/Feedback.tsx';
import { Field } from '../../components/Field.tsx';
import { FormCard } from '../../components/FormCard.tsx';
import { Table } from '../../components/Table.tsx';
import { del, enc, get, post } from '../../lib/api.ts';
import { formatWhen } from '../../lib/format.ts';
import { useSubmit } from '../../lib/useSubmit.ts';

type Token = { id: string; scope: string; label: string; createdAt: number; lastUsedAt: number | null };

const scopes: { scope: string; about: string }[] = [
  { scope: 'read', about: 'monitoring and settings reads, the live stream, /metrics' },
  { scope: 'write', about: 'reads, plus checks, channels, silences and other changes' },
  { scope: 'deploy', about: 'only recording deploys and changes' },
  { scope: 'mcp', about: 'only the assistant interface at /mcp' },
];

/** API tokens (admins only): create one (shown once), see when each was last used, revoke. */
export default function Tokens() {
  const client = useQueryClient();
  const tokens = useQuery({ queryKey: ['tokens'], queryFn: () => get<{ tokens: Token[] }>('/tokens') });
  const [created, setCreated] = useState<(Token & { token: string }) | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const revoke = useMutation({
    mutationFn: (id: string) => del(`/tokens/${enc(id)}`),
    onSettled: () => {
      setConfirm(null);
      void client.invalidateQueries({ queryKey: ['tokens'] });
    },
  });
  useEffect(() => {
    document.title = 'Tokens · mon';
  }, []);

  if (tokens.isPending) return <Loading />;
  if (tokens.isError) return <ReadError error={tokens.error} />;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>API tokens</h1>
          <p className="sub">
            Send a token as <code>Authorization: Bearer mon_…</code>. Tokens are stored hashed and shown once.
          </p>
        </div>
      </div>
      {created ? (
        <div className="secret-once" role="status">
          <p style={{ marginTop: 0 }}>
            <strong>Copy the token “{created.label}” now: it will not be shown again.</strong>
          </p>
          <CopyField value={created.token} label="New token" />
          <button
            type="button"
            className="link-button"
            onClick={() => setCreated(null)}
            style={{ marginTop: '0.5rem' }}
          >
            Done
          </button>
        </div>
      ) : null}
      <ErrorBox error={revoke.error} />
      <section className="card">
        {tokens.data.tokens.length === 0 ? (
          <p className="empty">No tokens yet.</p>
        ) : (
          <Table
            head={
              <>
                <th>Label</th>
                <th>Scope</th>
                <th>Created</th>
                <th>Last used</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </>
            }
          >
            {tokens.data.tokens.map((t) => (
              <tr key={t.id}>
                <td className="name-cell">{t.label}</td>
                <td>
                  <span className="badge">{t.scope}</span>
                </td>
                <td className="small">{formatWhen(t.createdAt)}</td>
                <td className="small">
                  {t.lastUsedAt ? formatWhen(t.lastUsedAt) : <span className="muted">never</span>}
                </td>
                <td className="num">
                  {confirm === t.id ? (
                    <Confirm
                      question={`Revoke ${t.label}?`}
                      action="Revoke"
                      busy={revoke.isPending}
                      onConfirm={() => revoke.mutate(t.id)}
                      trigger={`revoke-${t.id}`}
                      onCancel={() => setConfirm(null)}
                    />
                  ) : (
                    <button
                      type="button"
                      id={`revoke-${t.id}`}
                      className="link-button danger"
                      onClick={() => setConfirm(t.id)}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </section>
      <NewToken
        onCreated={(token) => {
          setCreated(token);
          void client.invalidateQueries({ queryKey: ['tokens'] });
        }}
      />
    </>
  );
}

function NewToken({ onCreated }: { onCreated: (token: Token & { token: string }) => void }) {
  const submit = useSubmit(
    async (form) => {
      const token = await post<Token & { token: string }>('/tokens', {
        label: String(form.get('label')),
        scope: String(form.get('scope')),
      });
      onCreated(token);
    },
    ['label'],
  );
  return (
    <FormCard title="Create a token" action="Create token" submit={submit}>
      <Field id="token-label" label="Label" error={submit.fieldError('label')}>
        <input
          id="token-label"
          name="label"
          required
          placeholder="CI deploys"
          aria-invalid={submit.fieldError('label') ? true : undefined}
        />
      </Field>
      <Field id="token-scope" label="Scope">
        <select id="token-scope" name="scope" defaultValue="read">
          {scopes.map((s) => (
            <option key={s.scope} value={s.scope}>
              {s.scope}: {s.about}
            </option>
          ))}
        </select>
      </Field>
    </FormCard>
  );
}
