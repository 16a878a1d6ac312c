import { useState } from 'react';
import type { CheckRow } from '../../../../protocol/reads.ts';
import { Confirm } from '../../components/Confirm.tsx';
import { CopyField } from '../../components/Copy.tsx';
import { ErrorBox } from '../../components/Feedback.tsx';
import { formatRelative, formatWhen } from '../../lib/format.ts';
import { useMakePingUrl, usePingUrl } from './queries.ts';

/**
 * A heartbeat's last ping and deadline, and its ping URL: shown once when made, with a copy button.
 * Replacing a URL that exists asks first: the jobs that use it fail from then on.
 */
export function HeartbeatCard({
  check,
  canWrite,
  managed,
}: {
  check: CheckRow;
  canWrite: boolean;
  managed: boolean;
}) {
  const shown = usePingUrl(check.id).data ?? null;
  const make = useMakePingUrl(check.id);
  const [confirming, setConfirming] = useState(false);
  const hb = check.heartbeat;
  const hasUrl = shown !== null || hb?.hasPingUrl === true;
  return (
    <section className="card">
      <div className="card-head">
        <h2>Heartbeat</h2>
        {canWrite && !managed && !confirming ? (
          <button
            type="button"
            id="new-ping-url"
            onClick={() => (hasUrl ? setConfirming(true) : make.mutate())}
            disabled={make.isPending}
          >
            {hasUrl ? 'Make a new ping URL…' : 'Make a ping URL'}
          </button>
        ) : null}
      </div>
      <div className="card-body">
        {confirming ? (
          <div className="alert warn" style={{ marginBottom: '1rem' }}>
            <Confirm
              question="Make a new ping URL? The current URL stops working at once: cron jobs and scripts that still use it will fail until they use the new one."
              action="Make a new URL"
              busy={make.isPending}
              trigger="new-ping-url"
              onConfirm={() => make.mutate(undefined, { onSettled: () => setConfirming(false) })}
              onCancel={() => setConfirming(false)}
            />
          </div>
        ) : null}
        <dl className="kv" style={{ marginBottom: '1rem' }}>
          <dt>Last ping</dt>
          <dd>
            {hb?.lastPingAt
              ? `${formatWhen(hb.lastPingAt)} (${formatRelative(hb.lastPingAt)})`
              : 'never pinged'}
          </dd>
          {hb?.startedAt ? (
            <>
              <dt>Running since</dt>
              <dd>{formatWhen(hb.startedAt)}</dd>
            </>
          ) : null}
          <dt>Late after</dt>
          <dd>{hb?.dueAt ? `${formatWhen(hb.dueAt)} (${formatRelative(hb.dueAt)})` : '–'}</dd>
        </dl>
        {shown ? (
          <>
            <div className="secret-once">
              <strong>Copy the ping URL now: it is shown only once.</strong>
              {shown.replaced ? ' The previous URL no longer works.' : ''}
            </div>
            <div className="field">
              <span id="ping-url-label">Ping URL</span>
              <CopyField value={shown.url} label="Ping URL" />
              <span className="hint">
                Request it (GET or POST) when the job succeeds. Add <code>/start</code> when it starts,{' '}
                <code>/fail</code> when it fails, or <code>/&lt;exit code&gt;</code>. A push URL also works:{' '}
                <code>{pushUrl(shown.url)}</code>
              </span>
            </div>
            <pre className="mono small" style={{ whiteSpace: 'pre-wrap', margin: 0 }}>
              {`curl -fsS -m 10 --retry 3 ${shown.url}`}
            </pre>
          </>
        ) : managed ? (
          <p className="muted">The ping URL comes from this heartbeat's ping_token in mon.toml.</p>
        ) : (
          <p className="muted">
            {hasUrl
              ? 'The ping URL was shown when it was made and is stored only as a hash.'
              : 'This heartbeat has no ping URL yet.'}
            {canWrite && hasUrl ? ' Make a new one if it is lost; the old one then stops working.' : ''}
          </p>
        )}
        <ErrorBox error={make.error} />
      </div>
    </section>
  );
}

function pushUrl(url: string): string {
  return `${url.replace('/ping/', '/api/push/')}?status=up`;
}
