import type { DeployRow } from '../../../protocol/deploys.ts';
import { DAY, HOUR, MINUTE } from '../../../protocol/durations.ts';
import type { Cause, Evidence } from '../../../protocol/incidents.ts';
import { isoDate } from '../../../protocol/iso-time.ts';
import { type Candidate, type Reach, type Relation, subjectOf } from './candidates.ts';
import { COUNTER_WEIGHT, type TimeScale, type WeightedKind, weightedKind } from './formula.ts';
import { hostFacts } from './host-events.ts';

/** The words of a likely cause: its title, evidence, what it points at, and why each factor is what it is. */
export type Described = {
  title: string;
  evidence: Evidence[];
  ref: Cause['ref'];
  why: { time: string; relation: string; kind: string };
  /** Counter-evidence, each with what it multiplies the score by. */
  counter: { why: string; weight: number }[];
};

export type Context = {
  reach: Reach;
  relation: Relation;
  start: number;
  /** When the state changed. */
  at: number;
  scale: TimeScale;
  /** For a deploy: the next deploy of its service before the start. */
  replacedBy: DeployRow | null;
};

const kindWhy: Record<WeightedKind, string> = {
  deploy: 'a deploy: new code went live',
  change: 'a change',
  push: 'a push: code on its way, not yet live',
  dependency: 'a service it depends on went down',
  certificate: 'an expired certificate fails the checks that use it',
  domain: 'a domain registration near or past expiry fails its check',
  oom: 'a container killed for lack of memory',
  unit_failed: 'a systemd unit failed',
  silent: "the host's agent went silent: the host may be down or cut off",
  threshold: 'a host ran above its limit',
  restart: 'a container restarted',
  unit_restart: 'a systemd unit restarted',
};

export function describe(candidate: Candidate, ctx: Context): Described {
  const age = ctx.start - ctx.at;
  const subject = subjectOf(candidate);
  return {
    ...factsOf(candidate, ctx),
    why: {
      time: `${age === 0 ? 'at the start' : `${span(age)} before the start`} (full weight within ${span(ctx.scale.full)}, halving every ${span(ctx.scale.half)})`,
      relation: relationWhy(ctx, subject.service, subject.host),
      kind: kindWhy[weightedKind(candidate)],
    },
  };
}

type Facts = Omit<Described, 'why'>;

function factsOf(candidate: Candidate, ctx: Context): Facts {
  switch (candidate.kind) {
    case 'deploy': {
      const d = candidate.deploy;
      const counter: Described['counter'] = [];
      if (ctx.replacedBy)
        counter.push({
          why: `replaced by ${ctx.replacedBy.version} ${span(ctx.start - ctx.replacedBy.ts)} before the start`,
          weight: COUNTER_WEIGHT.replaced,
        });
      const [first, ...more] = candidate.ranElsewhere;
      if (first)
        counter.push({
          why: `${d.version} ran on ${first.service} for ${span(ctx.start - first.ts)} before the start without going down${more.length > 0 ? ` (and on ${more.length} more)` : ''}`,
          weight: COUNTER_WEIGHT.ranElsewhere,
        });
      return {
        title: `Deploy of ${d.service} ${d.version}`,
        evidence: [
          {
            what: `${d.service} ${d.version} deployed${d.host ? ` on ${d.host}` : ''}${d.description ? `: ${d.description}` : ''}`,
            ts: d.ts,
            by: d.by,
            url: d.url,
          },
        ],
        ref: { deploy: d.id, service: d.service },
        counter,
      };
    }
    case 'change': {
      const c = candidate.change;
      return {
        title: `${c.kind === 'push' ? 'Push' : 'Change'}: ${c.what}`,
        evidence: [
          { what: c.description ? `${c.what}: ${c.description}` : c.what, ts: c.ts, by: c.by, url: c.url },
        ],
        ref: { change: c.id, ...(c.service !== null && { service: c.service }) },
        counter: [],
      };
    }
    case 'dependency': {
      const downs = [...candidate.downs].sort((a, b) => a.at - b.at || (a.check < b.check ? -1 : 1));
      const evidence: Evidence[] = [];
      for (const d of downs) {
        evidence.push({ what: `${d.name} went down: ${d.detail}`, ts: d.at, by: null, url: null });
        if (d.recoveredAt !== null)
          evidence.push({ what: `${d.name} came back`, ts: d.recoveredAt, by: null, url: null });
      }
      evidence.sort((a, b) => a.ts - b.ts);
      const back = downs.map((d) => d.recoveredAt);
      const counter: Described['counter'] = back.every((t) => t !== null)
        ? [
            {
              why: `${candidate.service} came back ${span(ctx.start - Math.max(...(back as number[])))} before the start`,
              weight: COUNTER_WEIGHT.recovered,
            },
          ]
        : [];
      return {
        title: `Dependency ${candidate.service} went down`,
        evidence,
        ref: { service: candidate.service, check: downs.at(-1)!.check },
        counter,
      };
    }
    case 'certificate':
    case 'domain': {
      const what = candidate.kind === 'certificate' ? 'certificate' : 'domain registration';
      const verb = candidate.expires <= ctx.start ? 'expired' : 'expires';
      return {
        title: `${candidate.kind === 'certificate' ? 'Certificate' : 'Domain registration'} of ${candidate.name} ${verb}${verb === 'expires' ? ` ${isoDate(candidate.expires)}` : ''}`,
        evidence: [
          {
            what: `${candidate.name}: ${what} ${verb} ${isoDate(candidate.expires)}`,
            ts: candidate.recordedAt,
            by: null,
            url: null,
          },
        ],
        ref: { service: candidate.service, check: candidate.check },
        counter: [],
      };
    }
    case 'container':
    case 'unit':
    case 'host':
    case 'agent':
      return {
        ...hostFacts(candidate),
        ref: { host: candidate.host, ...(candidate.service !== null && { service: candidate.service }) },
        counter: [],
      };
  }
}

function relationWhy(ctx: Context, service: string | null, host: string | null): string {
  const { reach } = ctx;
  switch (ctx.relation) {
    case 'service':
      return service === reach.services[0]
        ? `${service} is the incident's service`
        : `${service} is one of the incident's services`;
    case 'host': {
      const owner = host === null ? null : reach.hosts.get(host);
      return owner ? `on ${host}, a host of ${owner}` : `on ${host}, one of the incident's hosts`;
    }
    case 'dependency':
      return `${reach.dependencies.get(service ?? '')} depends on ${service}`;
    case 'none':
      return 'bound to no service or host';
  }
}

/** A span in words, rounded down: "40 s", "25 min", "5 h", "3 days". */
export function span(ms: number): string {
  if (ms < MINUTE) return `${Math.floor(ms / 1000)} s`;
  if (ms < 2 * HOUR) return `${Math.floor(ms / MINUTE)} min`;
  if (ms < 2 * DAY && ms !== DAY) return `${Math.floor(ms / HOUR)} h`;
  const days = Math.floor(ms / DAY);
  return `${days} day${days === 1 ? '' : 's'}`;
}
