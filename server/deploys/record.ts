import type { ChangeAnswer, DeployAnswer } from '../../protocol/deploys.ts';
import { liveKeys } from '../../protocol/live.ts';
import type { Deps } from '../deps.ts';
import { invalid } from '../problem.ts';
import type { Tx } from '../store/writer.ts';
import { type ChangeReport, type DeployReport, recordChange, recordDeploy, serviceExists } from './store.ts';

/** A deploy or change to write. */
export type Report = { type: 'deploy'; report: DeployReport } | { type: 'change'; report: ChangeReport };

/** One report waiting in the queue; `answer` is filled by the job that stores it. */
type Item =
  | { type: 'deploy'; report: DeployReport; answer: DeployAnswer | null }
  | { type: 'change'; report: ChangeReport; answer: ChangeAnswer | null };

/**
 * Deploys and changes go to storage through one ingest queue (docs/architecture.md "Ingest queues"):
 * a caller hears its answer once the report is committed, a 503 when storage cannot take it (then
 * nothing is stored, and a retry merges with whatever was). A report naming a service mon does not
 * know is refused with 422 by the job itself, so a service removed meanwhile is never written to.
 */
export type Recorder = {
  deploy(report: DeployReport): Promise<DeployAnswer>;
  change(report: ChangeReport): Promise<ChangeAnswer>;
  close(): Promise<void>;
};

export function createRecorder(deps: Deps): Recorder {
  const queue = deps.store.ingestQueue<Item>({
    onUnavailable: () => deps.metrics.ingestRejected.inc({ reason: 'queue_full' }),
    apply: (tx, items, refuse) => {
      items.forEach((item, i) => {
        const { service } = item.report;
        if (service !== null && !serviceExists(tx.db, service)) {
          refuse(i, unknownService(service));
          return;
        }
        // A batch that is split and written again sets the answer again: the committed write's stays.
        if (item.type === 'deploy') item.answer = recordReport(tx, item);
        else item.answer = recordReport(tx, item);
      });
    },
  });

  return {
    async deploy(report) {
      const item: Item = { type: 'deploy', report, answer: null };
      await queue.submit(item);
      deps.metrics.ingestAccepted.inc({ endpoint: 'deploy' });
      return item.answer!;
    },
    async change(report) {
      const item: Item = { type: 'change', report, answer: null };
      await queue.submit(item);
      deps.metrics.ingestAccepted.inc({ endpoint: 'change' });
      return item.answer!;
    },
    close: () => queue.close(),
  };
}

/**
 * Writes one deploy or change in the caller's writer job: the one way a deploy or change is stored,
 * for the API's and the webhook's queue above and for the agent's image changes
 * (hosts/agent-deploys.ts), which commit with the frame that showed them. The caller has checked that
 * the service exists. Nothing is dispatched: every reader of deploys reads the table when it reads
 * (docs/architecture.md "Domain events"); the live keys go out after the commit.
 */
export function recordReport(tx: Tx, item: { type: 'deploy'; report: DeployReport }): DeployAnswer;
export function recordReport(tx: Tx, item: { type: 'change'; report: ChangeReport }): ChangeAnswer;
export function recordReport(tx: Tx, item: Report): DeployAnswer | ChangeAnswer {
  let answer: DeployAnswer | ChangeAnswer;
  if (item.type === 'deploy') {
    const { id, merged } = recordDeploy(tx.db, item.report);
    answer = { event_id: id, merged };
  } else {
    answer = { event_id: recordChange(tx.db, item.report) };
  }
  const { service } = item.report;
  // Timelines, chart markers, likely causes and the overview show deploys and changes.
  tx.invalidate(
    liveKeys.overview,
    liveKeys.incidents,
    ...(service === null ? [] : [liveKeys.service(service)]),
  );
  return answer;
}

function unknownService(name: string) {
  return invalid(
    'service',
    `unknown service "${name}"; name a service mon knows (a [[service]] of mon.toml or the service of a check)`,
  );
}
