import { useEffect, useState } from 'react';
import type { ChannelRead } from '../../../../protocol/notify.ts';
import { Confirm } from '../../components/Confirm.tsx';
import { ErrorBox, Loading, ReadError } from '../../components/Feedback.tsx';
import { SettingsNav } from '../../components/SettingsNav.tsx';
import { ActionsHeader, Table } from '../../components/Table.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatLatency } from '../../lib/format.ts';
import { useCanWrite } from '../../lib/session.ts';
import { useSettings } from '../../lib/settings.ts';
import { ChannelForm } from './ChannelForm.tsx';
import { kindInfo, targetSummary } from './model.ts';
import { useDeleteChannel, useTestChannel } from './queries.ts';
import './notifications.css';

/** Notification channels: the list (mon.toml's first), add, change, remove, and a test button each. */
export default function Channels() {
  const settings = useSettings();
  const canWrite = useCanWrite();
  const [editing, setEditing] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const remove = useDeleteChannel(() => setConfirm(null));
  useEffect(() => {
    document.title = 'Channels · mon';
  }, []);

  const head = (
    <>
      <div className="page-head">
        <div>
          <h1>Channels</h1>
          <p className="sub">
            Where mon sends word of incidents. Channels of <code>mon.toml</code> are changed there.
          </p>
        </div>
      </div>
      <SettingsNav />
    </>
  );
  if (settings.isPending)
    return (
      <>
        {head}
        <Loading />
      </>
    );
  if (settings.isError)
    return (
      <>
        {head}
        <ReadError error={settings.error} />
      </>
    );
  const { channels } = settings.data;
  const beingEdited = channels.find((c) => c.name === editing && !c.managed);

  return (
    <>
      {head}
      <ErrorBox error={remove.error} title="Could not remove." />
      <section className="card" aria-label="Channels">
        {channels.length === 0 ? (
          <p className="empty">No channel yet: nobody is told when something fails.</p>
        ) : (
          <Table
            testId="channels"
            head={
              <>
                <th>Name</th>
                <th>Kind</th>
                {canWrite ? <th>Sends to</th> : null}
                {canWrite ? <ActionsHeader /> : null}
              </>
            }
          >
            {channels.map((c) => (
              <tr key={c.name} data-channel={c.name}>
                <td className="name-cell">
                  {c.name} {c.managed ? <span className="badge">from mon.toml</span> : null}
                </td>
                <td>{kindInfo[c.kind].label}</td>
                {canWrite ? <td className="small target-cell">{targetSummary(c)}</td> : null}
                {canWrite ? (
                  <td className="num">
                    {confirm === c.name ? (
                      <Confirm
                        question={`Remove ${c.name}?`}
                        action="Remove"
                        busy={remove.isPending}
                        onConfirm={() => remove.mutate(c.name)}
                        trigger={`remove-${c.name}`}
                        onCancel={() => setConfirm(null)}
                      />
                    ) : (
                      <RowActions
                        channel={c}
                        onEdit={() => setEditing(c.name)}
                        onRemove={() => setConfirm(c.name)}
                      />
                    )}
                  </td>
                ) : null}
              </tr>
            ))}
          </Table>
        )}
      </section>
      {canWrite && beingEdited ? (
        <ChannelForm key={beingEdited.name} channel={beingEdited} onDone={() => setEditing(null)} />
      ) : null}
      {canWrite ? <ChannelForm /> : null}
    </>
  );
}

/** Test, and for panel channels Edit and Remove; the test's result shows under the buttons. */
function RowActions({
  channel,
  onEdit,
  onRemove,
}: {
  channel: ChannelRead;
  onEdit: () => void;
  onRemove: () => void;
}) {
  const test = useTestChannel();
  const result = test.data;
  return (
    <div className="channel-actions">
      <span className="actions" style={{ justifyContent: 'flex-end' }}>
        <button
          type="button"
          className="link-button"
          disabled={test.isPending}
          onClick={() => test.mutate(channel.name)}
        >
          {test.isPending ? 'Testing…' : 'Test'}
        </button>
        {channel.managed ? null : (
          <>
            <button type="button" className="link-button" onClick={onEdit}>
              Edit
            </button>
            <button
              type="button"
              id={`remove-${channel.name}`}
              className="link-button danger"
              onClick={onRemove}
            >
              Remove
            </button>
          </>
        )}
      </span>
      <span role="status" className="small test-result" data-testid={`test-${channel.name}`}>
        {test.isPending ? null : result ? (
          result.delivered ? (
            <span className="delivered">Test message delivered in {formatLatency(result.latencyMs)}</span>
          ) : (
            <span className="field-error">Not delivered: {result.error}</span>
          )
        ) : test.error instanceof ApiError && test.error.status === 429 ? (
          <span className="field-error">
            Another test is running; try again in {test.error.retryAfter ?? 'a few'} s.
          </span>
        ) : test.error ? (
          <span className="field-error">
            {String(test.error instanceof ApiError ? test.error.text : test.error)}
          </span>
        ) : null}
      </span>
    </div>
  );
}
