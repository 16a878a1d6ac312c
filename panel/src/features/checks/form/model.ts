import type { Assertion, CheckBody, CheckKind } from '../../../../../protocol/check.ts';
import { formatDuration as durationText } from '../../../../../protocol/durations.ts';
import { type AssertionKey, allowedAssertions, connectingKinds } from '../../../../../protocol/kinds.ts';
import { formatDuration, parseDuration } from '../../../lib/format.ts';

/**
 * The check form's model, pure: its state is text as typed, turned into a check body on submit
 * (protocol/check.ts); which fields a kind shows; the form's words for the API's field names.
 */

export const kinds = [
  'http',
  'tcp',
  'dns',
  'ping',
  'domain',
  'heartbeat',
] as const satisfies readonly CheckKind[];
export const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export type AssertionType = AssertionKey;

/** Which assertions each kind takes: the server's list, so that a save never drops one it accepts. */
export const assertionTypes = allowedAssertions;

export const assertionLabels: Record<AssertionType, string> = {
  status: 'Status is',
  bodyContains: 'Body contains',
  bodyNotContains: 'Body does not contain',
  json: 'JSON value at',
  equals: 'An answer equals',
  responseTimeBelowMs: 'Response time below (ms)',
};

/** An `equals` alone compares an HTTP check's whole body, or a DNS check's answers. */
export const assertionLabel = (kind: CheckKind, type: AssertionType) =>
  type === 'equals' && kind === 'http' ? 'Body equals' : assertionLabels[type];

export const kindInfo: Record<
  CheckKind,
  { label: string; target: string; placeholder: string; help: string }
> = {
  http: {
    label: 'HTTP',
    target: 'URL',
    placeholder: 'https://example.com/health',
    help: 'Requests a URL; any 2xx passes unless you add assertions. Follows up to 5 redirects for GET and HEAD.',
  },
  tcp: {
    label: 'TCP',
    target: 'Host and port',
    placeholder: 'db.example.com:5432',
    help: 'Opens a TCP connection.',
  },
  dns: {
    label: 'DNS',
    target: 'DNS name',
    placeholder: 'example.com',
    help: 'Resolves a name with the resolvers of the host that runs the check.',
  },
  ping: {
    label: 'Ping',
    target: 'Host',
    placeholder: 'host.example.com or 192.0.2.10',
    help: 'Sends ICMP echo requests; some replies missing is degraded.',
  },
  domain: {
    label: 'Domain',
    target: 'Registered domain',
    placeholder: 'example.com',
    help: 'Watches when the domain registration expires. Runs every 6 hours from the server.',
  },
  heartbeat: {
    label: 'Heartbeat',
    target: '',
    placeholder: '',
    help: 'Waits for pings from a scheduled job; late or failed pings make it down.',
  },
};

export type AssertionRow = {
  key: number;
  type: AssertionType;
  value: string;
  equals: string;
  degraded: boolean;
};
/** `value: null` = a stored value the server does not show; sent back as null it stays as it is. */
export type HeaderRow = { key: number; name: string; value: string | null };

export type FormState = {
  name: string;
  service: string;
  kind: CheckKind;
  target: string;
  method: string;
  headers: HeaderRow[];
  /** Lets the check reach link-local addresses, where cloud metadata services answer (docs/checks.md). */
  allowLinkLocal: boolean;
  every: string;
  timeout: string;
  from: string;
  expect: AssertionRow[];
  schedule: 'every' | 'cron';
  cron: string;
  timezone: string;
  grace: string;
};

/** The API fields the form shows for a kind and schedule; an error naming another is listed apart. */
export function fieldsShown(kind: CheckKind, schedule: FormState['schedule']): ReadonlySet<string> {
  const heartbeat = kind === 'heartbeat';
  const shown = ['kind', 'name', 'service', 'expect'];
  if (!heartbeat) shown.push('target', 'timeoutMs');
  if (kind === 'http') shown.push('method', 'headers');
  if (connectingKinds.includes(kind)) shown.push('allowLinkLocal');
  if (kind !== 'domain' && (!heartbeat || schedule === 'every')) shown.push('everyMs');
  if (heartbeat && schedule === 'cron') shown.push('cron', 'timezone');
  if (heartbeat) shown.push('graceMs');
  if (kind !== 'domain' && !heartbeat) shown.push('from');
  return new Set(shown);
}

let nextKey = 1;
export const newKey = () => nextKey++;

export function emptyForm(service = ''): FormState {
  return {
    name: '',
    service,
    kind: 'http',
    target: '',
    method: 'GET',
    headers: [],
    allowLinkLocal: false,
    every: '1m',
    timeout: '',
    from: '',
    expect: [],
    schedule: 'every',
    cron: '',
    timezone: '',
    grace: '',
  };
}

/** Text for an `equals` value: strings as typed unless they would read as another type. */
function equalsText(value: Assertion['equals']): string {
  if (typeof value === 'string')
    return /^(true|false|null|-?\d+(\.\d+)?)$/.test(value) ? JSON.stringify(value) : value;
  return value === undefined ? '' : JSON.stringify(value);
}

/** A typed value: true/false and numbers as such, "quoted" or anything else as text (no null: see protocol). */
function parseEquals(text: string): string | number | boolean {
  const t = text.trim();
  if (t === 'true' || t === 'false') return t === 'true';
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (/^".*"$/.test(t)) return t.slice(1, -1);
  return text;
}

/** A duration field as mon writes durations ("90s", "1d"); empty when the body has none. */
const fieldDuration = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? '' : durationText(ms);

export function formFromBody(body: CheckBody): FormState {
  const expect: AssertionRow[] = (body.expect ?? []).map((a) => {
    const row: AssertionRow = {
      key: newKey(),
      type: 'status',
      value: '',
      equals: '',
      degraded: !!a.degraded,
    };
    if (a.status !== undefined) row.value = String(a.status);
    else if (a.bodyContains !== undefined)
      Object.assign(row, { type: 'bodyContains', value: a.bodyContains });
    else if (a.bodyNotContains !== undefined)
      Object.assign(row, { type: 'bodyNotContains', value: a.bodyNotContains });
    else if (a.json !== undefined)
      Object.assign(row, { type: 'json', value: a.json, equals: equalsText(a.equals) });
    else if (a.responseTimeBelowMs !== undefined)
      Object.assign(row, { type: 'responseTimeBelowMs', value: String(a.responseTimeBelowMs) });
    else if (a.equals !== undefined) Object.assign(row, { type: 'equals', value: equalsText(a.equals) });
    return row;
  });
  return {
    name: body.name,
    service: body.service,
    kind: body.kind,
    target: body.target ?? '',
    method: body.method ?? 'GET',
    headers: Object.entries(body.headers ?? {}).map(([name, value]) => ({ key: newKey(), name, value })),
    allowLinkLocal: body.allowLinkLocal === true,
    every: fieldDuration(body.everyMs),
    timeout: fieldDuration(body.timeoutMs),
    from: body.from ?? '',
    expect,
    schedule: body.cron ? 'cron' : 'every',
    cron: body.cron ?? '',
    timezone: body.timezone ?? '',
    grace: fieldDuration(body.graceMs),
  };
}

/** The form's label of an API field, so that errors speak the form's words. */
export function fieldLabel(kind: CheckKind, field: string): string | undefined {
  const labels: Record<string, string> = {
    name: 'Name',
    service: 'Service',
    kind: 'Kind',
    target: kindInfo[kind].target || 'Target',
    method: 'Method',
    headers: 'Request headers',
    allowLinkLocal: 'Allow link-local addresses',
    everyMs: kind === 'heartbeat' ? 'Expected every' : 'Run every',
    timeoutMs: 'Timeout',
    from: 'Run from host',
    expect: 'Assertions',
    cron: 'Cron expression',
    timezone: 'Time zone',
    graceMs: 'Grace time',
    bodyContains: assertionLabels.bodyContains,
    bodyNotContains: assertionLabels.bodyNotContains,
    responseTimeBelowMs: 'Response time below',
  };
  return labels[field];
}

/**
 * A server message in the form's words: API names become labels ("must not exceed everyMs" reads
 * "must not exceed “Run every”"), and milliseconds of a duration field become a duration.
 */
export function readableMessage(kind: CheckKind, field: string, message: string): string {
  const named = message.replace(
    /\b(everyMs|timeoutMs|graceMs|responseTimeBelowMs|bodyContains|bodyNotContains)\b/g,
    (name) => `“${fieldLabel(kind, name)}”`,
  );
  return /^(everyMs|timeoutMs|graceMs)$/.test(field)
    ? named.replace(/\b\d{4,}\b/g, (n) => formatDuration(Number(n)))
    : named;
}

/** Field errors found before sending (unreadable durations, empty assertions); the server judges the rest. */
export type FieldErrors = Record<string, string>;

/**
 * `expectRows[i]` is the key of the form row sent as `expect[i]`, to put the server's errors at that row;
 * `expectErrors` holds the rows' own errors by row key.
 */
export type Built = {
  body: CheckBody;
  errors: FieldErrors;
  expectRows: number[];
  expectErrors: Map<number, string>;
};

export function bodyFromForm(f: FormState): Built {
  const errors: FieldErrors = {};
  const duration = (text: string, field: string): number | undefined => {
    const ms = parseDuration(text);
    if (ms === null) return undefined;
    if (Number.isNaN(ms)) {
      errors[field] = 'use a duration such as 30s, 5m, 1h or 1d';
      return undefined;
    }
    return ms;
  };
  const body: CheckBody = { name: f.name.trim(), service: f.service.trim(), kind: f.kind };
  const k = f.kind;
  if (k === 'heartbeat') {
    if (f.schedule === 'cron') {
      if (f.cron.trim()) body.cron = f.cron.trim();
      if (f.timezone.trim()) body.timezone = f.timezone.trim();
    } else {
      const every = duration(f.every, 'everyMs');
      if (every !== undefined) body.everyMs = every;
    }
    const grace = duration(f.grace, 'graceMs');
    if (grace !== undefined) body.graceMs = grace;
    return { body, errors, expectRows: [], expectErrors: new Map() };
  }
  if (f.target.trim()) body.target = f.target.trim();
  if (k === 'http') {
    body.method = f.method as (typeof methods)[number];
    const headers = f.headers.filter((h) => h.name.trim() || h.value !== '');
    if (headers.length) body.headers = Object.fromEntries(headers.map((h) => [h.name.trim(), h.value]));
  }
  if (f.allowLinkLocal && connectingKinds.includes(k)) body.allowLinkLocal = true;
  if (k !== 'domain') {
    const every = duration(f.every, 'everyMs');
    if (every !== undefined) body.everyMs = every;
    if (f.from.trim()) body.from = f.from.trim();
  }
  const timeout = duration(f.timeout, 'timeoutMs');
  if (timeout !== undefined) body.timeoutMs = timeout;
  const allowed = assertionTypes[k];
  const expect: Assertion[] = [];
  const expectRows: number[] = [];
  const expectErrors = new Map<number, string>();
  f.expect.forEach((row) => {
    if (!allowed.includes(row.type)) return;
    const a: Assertion = {};
    const v = row.value.trim();
    // An empty value is missing, not 0 or "": say so here rather than send something else.
    if (v === '') expectErrors.set(row.key, 'required');
    else if (row.type === 'responseTimeBelowMs' && !/^\d+$/.test(v))
      expectErrors.set(row.key, 'use a whole number of milliseconds, e.g. 500');
    if (row.type === 'status') a.status = /^\d+$/.test(v) ? Number(v) : v;
    else if (row.type === 'responseTimeBelowMs') a.responseTimeBelowMs = Number(v);
    else if (row.type === 'json') {
      a.json = v;
      if (row.equals.trim() !== '') a.equals = parseEquals(row.equals);
    } else if (row.type === 'equals') a.equals = parseEquals(row.value);
    else a[row.type] = row.value;
    if (row.degraded) a.degraded = true;
    expect.push(a);
    expectRows.push(row.key);
  });
  if (expect.length) body.expect = expect;
  return { body, errors, expectRows, expectErrors };
}
