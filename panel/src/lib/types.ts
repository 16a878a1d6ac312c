/** Shapes of the JSON API the panel reads (docs/api-checks.md, SPEC.md). */
import type { CheckBody, CheckKind } from '../../../protocol/check.ts';
import type { Series } from '../../../protocol/reads.ts';

export type { CheckBody, CheckKind };
export type Status = 'up' | 'down' | 'degraded' | 'unknown';
export type Role = 'admin' | 'viewer';

export type AuthState = {
  needsSetup: boolean;
  user: { id?: string; email: string; role: Role } | null;
  password: boolean;
  providers: { name: string; label?: string; url: string }[];
  proxy: boolean;
};

export type ServiceSummary = {
  name: string;
  managed: boolean;
  status: Status;
  uptime: { day: number | null };
  checks: { id: string; name: string; kind: CheckKind | 'command'; status: Status }[];
};

export type Expiry = { kind: 'certificate' | 'domain' | string; expires: number; seen: number };

export type CheckRow = {
  id: string;
  name: string;
  service: string;
  kind: CheckKind | 'command';
  status: Status;
  since: number | null;
  target: string | null;
  everyMs: number | null;
  cron: string | null;
  from: string | null;
  managed: boolean;
  hostDefined: boolean;
  lastRunAt: number | null;
  lastLatencyMs: number | null;
  lastDetail: string | null;
  lastValue: number | null;
  expiry: Expiry | null;
  heartbeat: { lastPingAt: number | null; startedAt: number | null; dueAt: number | null } | null;
};

export type ServiceDetail = {
  name: string;
  managed: boolean;
  status: Status;
  uptime: { day: number | null; month: number | null; year: number | null };
  checks: CheckRow[];
};

export type CheckDefinitionRead = { id: string; managed: boolean; hostDefined: boolean; input: CheckBody };

export type Beat = { ts: number; status: Status; latencyMs: number | null; detail: string | null };

export type CheckDetail = {
  check: CheckRow;
  service: { name: string; status: Status };
  beats: Beat[];
  /** null until the check has run. */
  uptime: { day: number | null; month: number | null; year: number | null } | null;
  dayAverageMs: number | null;
  series: Series;
  expiry: Expiry | null;
};

export type HistoryItem = {
  ts: number;
  kind: 'failure' | 'change';
  status: Status | null;
  title: string;
  detail: string | null;
  latencyMs: number | null;
};

export type HistoryPage = { items: HistoryItem[]; next: number | null };

export const ranges = ['1h', '24h', '7d', '30d', '1y'] as const;
export type Range = (typeof ranges)[number];
