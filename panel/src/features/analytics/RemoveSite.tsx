import { useState } from 'react';
import { Confirm } from '../../components/Confirm.tsx';
import { ErrorBox } from '../../components/Feedback.tsx';
import { useRemoveSite } from './queries.ts';

/** What a removal deletes, in words: the question names it before anything goes. */
export function removalQuestion(domain: string, service: string | null): string {
  const stays = service ? `; the checks of ${service} stay` : '';
  return `Remove ${domain}? mon stops counting its pages at once, and its visitors, page views, daily counts, Web Vitals and JavaScript errors are deleted${stays}. This cannot be undone.`;
}

/** "Remove site…", after a confirmation (a site added here; one of mon.toml goes by taking it out of the file). */
export function RemoveSite({ domain, service }: { domain: string; service: string | null }) {
  const [confirming, setConfirming] = useState(false);
  const remove = useRemoveSite(domain);
  return (
    <>
      {confirming ? (
        <Confirm
          question={removalQuestion(domain, service)}
          action="Remove site"
          busy={remove.isPending}
          trigger="remove-site"
          onConfirm={() => remove.mutate()}
          onCancel={() => setConfirming(false)}
        />
      ) : (
        <button type="button" id="remove-site" className="danger" onClick={() => setConfirming(true)}>
          Remove site…
        </button>
      )}
      <ErrorBox error={remove.error} title="Could not remove the site." />
    </>
  );
}
