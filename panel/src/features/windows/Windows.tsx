import { useEffect, useState } from 'react';
import type { WindowKind, WindowRead } from '../../../../protocol/notify.ts';
import { Confirm } from '../../components/Confirm.tsx';
import { ErrorBox, Loading, ReadError } from '../../components/Feedback.tsx';
import { SettingsNav } from '../../components/SettingsNav.tsx';
import { ActionsHeader, Table } from '../../components/Table.tsx';
import { enc } from '../../lib/api.ts';
import { Link, navigate, useLocation } from '../../lib/router.tsx';
import { useCanWrite } from '../../lib/session.ts';
import { useSettings } from '../../lib/settings.ts';
import { type Draft, editDraft, kindWords, newDraft, scopeText, whenText } from './model.ts';
import { useEndWindow } from './queries.ts';
import { WindowForm } from './WindowForm.tsx';

type Editing = { id: string | null; draft: Draft };

/**
 * Silences and maintenance windows, in force and ahead: add one (also from a service or an incident
 * page, through `?new=…&scope=…&name=…`), change it, end it now or delete it. Viewers read only.
 */
export default function Windows() {
  const canWrite = useCanWrite();
  const settings = useSettings();
  const { query } = useLocation();
  const asked = query.toString();
  const [editing, setEditing] = useState<Editing | null>(null);
  useEffect(() => {
    document.title = 'Silences and maintenance · mon';
  }, []);
  // A link that asks for a new window opens the form, filled as it says.
  useEffect(() => {
    const params = new URLSearchParams(asked);
    if (params.has('new')) setEditing({ id: null, draft: newDraft(params, Date.now()) });
  }, [asked]);

  const close = () => {
    setEditing(null);
    navigate('/settings/windows', { replace: true });
  };
  const edit = (kind: WindowKind, w: WindowRead) => setEditing({ id: w.id, draft: editDraft(kind, w) });

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Silences and maintenance</h1>
          <p className="sub">
            A silence mutes notifications. A maintenance window mutes them too, marks incidents opened in it,
            and leaves its time out of uptime.
          </p>
        </div>
        {canWrite && editing === null ? (
          <div className="actions">
            <button
              type="button"
              className="primary"
              onClick={() => setEditing({ id: null, draft: newDraft(new URLSearchParams(), Date.now()) })}
            >
              New silence or maintenance
            </button>
          </div>
        ) : null}
      </div>
      <SettingsNav />
      {canWrite && editing ? (
        <WindowForm key={editing.id ?? asked} id={editing.id} initial={editing.draft} onDone={close} />
      ) : null}
      {settings.isPending ? (
        <Loading />
      ) : settings.isError ? (
        <ReadError error={settings.error} />
      ) : (
        <>
          <WindowList
            kind="maintenance"
            title="Maintenance windows"
            windows={settings.data.maintenance}
            canWrite={canWrite}
            onEdit={edit}
          />
          <WindowList
            kind="silence"
            title="Silences"
            windows={settings.data.silences}
            canWrite={canWrite}
            onEdit={edit}
          />
        </>
      )}
    </>
  );
}

function WindowList({
  kind,
  title,
  windows,
  canWrite,
  onEdit,
}: {
  kind: WindowKind;
  title: string;
  windows: WindowRead[];
  canWrite: boolean;
  onEdit: (kind: WindowKind, w: WindowRead) => void;
}) {
  const [confirm, setConfirm] = useState<string | null>(null);
  const end = useEndWindow(() => setConfirm(null));
  return (
    <section className="card" aria-labelledby={`${kind}-title`} data-testid={`${kind}-list`}>
      <div className="card-head">
        <h2 id={`${kind}-title`}>{title}</h2>
        <span className="muted small">in force and ahead</span>
      </div>
      <ErrorBox error={end.error} />
      {windows.length === 0 ? (
        <p className="empty">None.</p>
      ) : (
        <Table
          head={
            <>
              <th>Holds</th>
              <th>When</th>
              <th>Reason</th>
              <th>Made by</th>
              {canWrite ? <ActionsHeader /> : null}
            </>
          }
        >
          {windows.map((w) => (
            <tr key={w.id} data-window={w.id}>
              <td className="name-cell">
                {w.scope === 'all' ? (
                  'everything'
                ) : w.scope === 'service' && w.name ? (
                  <>
                    service <Link href={`/services/${enc(w.name)}`}>{w.name}</Link>
                  </>
                ) : (
                  `host ${w.name}`
                )}
              </td>
              <td className="small">
                {w.active ? <span className="badge">in force</span> : null} {whenText(w)}
              </td>
              <td className="small">{w.reason ?? <span className="muted">–</span>}</td>
              <td className="small">{w.createdBy}</td>
              {canWrite ? (
                <td className="num">
                  {confirm === w.id ? (
                    <Confirm
                      question={
                        w.active
                          ? `End the ${kindWords[kind].one} of ${scopeText(w)} now?`
                          : `Delete the ${kindWords[kind].one} of ${scopeText(w)}?`
                      }
                      action={w.active ? 'End now' : 'Delete'}
                      busy={end.isPending}
                      onConfirm={() => end.mutate({ kind, id: w.id })}
                      trigger={`end-${w.id}`}
                      onCancel={() => setConfirm(null)}
                    />
                  ) : (
                    <>
                      <button type="button" className="link-button" onClick={() => onEdit(kind, w)}>
                        Edit
                      </button>
                      <button
                        type="button"
                        id={`end-${w.id}`}
                        className="link-button danger"
                        onClick={() => setConfirm(w.id)}
                      >
                        {w.active ? 'End now' : 'Delete'}
                      </button>
                    </>
                  )}
                </td>
              ) : null}
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
