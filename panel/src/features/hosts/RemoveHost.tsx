import { useState } from 'react';
import type { HostRead } from '../../../../protocol/hosts.ts';
import { Confirm } from '../../components/Confirm.tsx';
import { ErrorBox } from '../../components/Feedback.tsx';
import { useRemoveHost } from './queries.ts';

const count = (n: number, noun: string) => (n === 0 ? '' : `${n} ${noun}${n === 1 ? '' : 's'}`);

/** What a removal deletes, in words: the question names it before anything goes. */
export function removalQuestion(h: HostRead): string {
  const gone = ['its metrics, host events and agent logs'];
  const items = [count(h.containers.length, 'container'), count(h.units.length, 'unit')].filter((c) => c);
  if (items.length > 0) gone.unshift(`its ${items.join(' and ')}`);
  const own = h.checks.filter((c) => c.hostDefined).map((c) => c.name);
  if (own.length > 0) gone.unshift(`its checks.toml checks (${own.join(', ')})`);
  if (h.services.length > 0) gone.push(`its links to ${h.services.join(', ')}`);
  return `Remove ${h.name}? Its token stops working at once, its open alerts close, and ${gone.join(', ')} are deleted. This cannot be undone.`;
}

/** "Remove host…", after a confirmation; a refusal (checks run from it) says why. */
export function RemoveHost({ host }: { host: HostRead }) {
  const [confirming, setConfirming] = useState(false);
  const remove = useRemoveHost(host.name);
  return (
    <div className="actions">
      {confirming ? (
        <Confirm
          question={removalQuestion(host)}
          action="Remove host"
          busy={remove.isPending}
          trigger="remove-host"
          onConfirm={() => remove.mutate()}
          onCancel={() => setConfirming(false)}
        />
      ) : (
        <button type="button" id="remove-host" className="danger" onClick={() => setConfirming(true)}>
          Remove host…
        </button>
      )}
      <ErrorBox error={remove.error} title="Could not remove the host." />
    </div>
  );
}
