import { useEffect, useState } from 'react';
import type { CreatedToken, TokenScope } from '../../../../protocol/accounts.ts';
import { Confirm } from '../../components/Confirm.tsx';
import { CopyField } from '../../components/Copy.tsx';
import { ErrorBox, Loading, ReadError } from '../../components/Feedback.tsx';
import { Field } from '../../components/Field.tsx';
import { FormCard } from '../../components/FormCard.tsx';
import { ActionsHeader, Table } from '../../components/Table.tsx';
import { post } from '../../lib/api.ts';
import { useForm } from '../../lib/form.ts';
import { formatWhen } from '../../lib/format.ts';
import { useRefreshTokens, useRevokeToken, useTokens } from './queries.ts';

/** The scopes offered here; `ping` and `agent` tokens are made by their features. */
const scopes: { scope: TokenScope; about: string }[] = [
  { scope: 'read', about: 'monitoring and settings reads, the live stream, /metrics' },
  { scope: 'write', about: 'reads, plus checks, channels, silences and other changes' },
  { scope: 'deploy', about: 'only recording deploys and changes' },
  { scope: 'mcp', about: 'only the assistant interface at /mcp' },
];

/** API tokens (admins only): create one (shown once), see when each was last used, revoke. */
export default function Tokens() {
  const tokens = useTokens();
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const revoke = useRevokeToken(() => setConfirm(null));
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
                <ActionsHeader />
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
      <NewToken onCreated={setCreated} />
    </>
  );
}

function NewToken({ onCreated }: { onCreated: (token: CreatedToken) => void }) {
  const refresh = useRefreshTokens();
  const form = useForm(
    async (data) => {
      const token = await post<CreatedToken>('/tokens', {
        label: String(data.get('label')),
        scope: String(data.get('scope')),
      });
      onCreated(token);
      void refresh();
    },
    { scope: 'token', fields: ['label'], reset: true },
  );
  return (
    <FormCard title="Create a token" action="Create token" form={form}>
      <Field {...form.field('label')} label="Label">
        <input {...form.control('label')} required placeholder="CI deploys" />
      </Field>
      <Field {...form.field('scope')} label="Scope">
        <select {...form.control('scope')} defaultValue="read">
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
