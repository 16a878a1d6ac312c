import type { Delivery, NotifyChange } from '../../../../protocol/notify.ts';
import { Table } from '../../components/Table.tsx';
import { formatWhen } from '../../lib/format.ts';

const changeWords: Record<NotifyChange, string> = {
  opened: 'opened',
  reminder: 'reminder',
  acknowledged: 'acknowledged',
  resolved: 'resolved',
};

/** Where a notification stands, in words, and the time that goes with it. */
function stateOf(d: Delivery): { words: string; when: string | null } {
  switch (d.state) {
    case 'sent':
      return { words: 'sent', when: d.sentAt === null ? null : formatWhen(d.sentAt) };
    case 'due':
      return {
        words: d.attempts === 0 ? 'waiting to be sent' : 'failed, will try again',
        when: d.nextAttemptAt === null ? null : `next attempt ${formatWhen(d.nextAttemptAt)}`,
      };
    case 'failed':
      return {
        words: 'not delivered, given up',
        when: d.lastAttemptAt === null ? null : formatWhen(d.lastAttemptAt),
      };
    case 'muted':
      return { words: 'held back by a silence or maintenance window', when: formatWhen(d.createdAt) };
    case 'dropped':
      return { words: 'dropped: the channel was removed', when: null };
  }
}

/** The incident's notifications to each channel, oldest first: what was said, where it stands, why not sent. */
export function Deliveries({ deliveries }: { deliveries: Delivery[] }) {
  return (
    <section className="card" aria-labelledby="deliveries-title">
      <div className="card-head">
        <h2 id="deliveries-title">Notifications</h2>
      </div>
      {deliveries.length === 0 ? (
        <p className="empty">No notification for this incident.</p>
      ) : (
        <DeliveryTable deliveries={deliveries} />
      )}
    </section>
  );
}

function DeliveryTable({ deliveries }: { deliveries: Delivery[] }) {
  return (
    <Table
      testId="deliveries"
      head={
        <>
          <th>Channel</th>
          <th>Change</th>
          <th>State</th>
          <th className="num">Attempts</th>
          <th>When</th>
        </>
      }
    >
      {deliveries.map((d) => {
        const { words, when } = stateOf(d);
        return (
          <tr key={d.id} data-delivery={d.id} data-state={d.state}>
            <td className="name-cell">
              {d.channel} {d.kind ? <span className="muted small">{d.kind}</span> : null}
            </td>
            <td>
              <span className="badge">{changeWords[d.change]}</span>
            </td>
            <td>
              {words}
              {d.lastError ? (
                <div className="muted small" style={{ maxWidth: '32rem', overflowWrap: 'anywhere' }}>
                  {d.lastError}
                </div>
              ) : null}
            </td>
            <td className="num">{d.attempts}</td>
            <td className="when">{when ?? '–'}</td>
          </tr>
        );
      })}
    </Table>
  );
}
