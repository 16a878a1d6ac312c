import { HOUR } from '../../../../protocol/durations.ts';
import type { WindowBody, WindowKind, WindowRead, WindowScope } from '../../../../protocol/notify.ts';
import type { MaintenanceNow } from '../../../../protocol/reads.ts';
import { Invalid } from '../../lib/form.ts';
import { formatWhen } from '../../lib/format.ts';

/**
 * The form of a silence or maintenance window as people fill it (start now or at a time, a length or
 * an end time) and the API body it becomes; the words lists use for a window.
 */

/** Lengths offered, or an end time (`until`). */
export const lengths = [
  { value: '1h', label: '1 hour', ms: HOUR },
  { value: '4h', label: '4 hours', ms: 4 * HOUR },
  { value: '1d', label: '1 day', ms: 24 * HOUR },
  { value: 'until', label: 'until a time', ms: null },
] as const;
export type Length = (typeof lengths)[number]['value'];

export type Draft = {
  kind: WindowKind;
  scope: WindowScope;
  name: string;
  /** Start now, or at `startAt`. */
  startNow: boolean;
  /** A `datetime-local` value, in the browser's time zone. */
  startAt: string;
  length: Length;
  until: string;
  reason: string;
  /** The stored times of a window being changed: kept to the millisecond while their inputs are untouched. */
  stored: { starts: number; ends: number } | null;
};

export const kindWords: Record<WindowKind, { one: string; path: string }> = {
  silence: { one: 'silence', path: 'silences' },
  maintenance: { one: 'maintenance window', path: 'maintenance' },
};

/** A time as a `datetime-local` value (local time, to the minute). */
export function toLocalInput(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A `datetime-local` value as a time, or null when it is not one. */
export function fromLocalInput(value: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return null;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? null : ms;
}

const scopes: readonly string[] = ['all', 'service', 'host'];
const kinds: readonly string[] = ['silence', 'maintenance'];

/** A new window's form, from `/settings/windows?new=maintenance&scope=service&name=shop`. */
export function newDraft(query: URLSearchParams, now: number): Draft {
  const kind = query.get('new') ?? '';
  const scope = query.get('scope') ?? '';
  return {
    kind: kinds.includes(kind) ? (kind as WindowKind) : 'silence',
    scope: scopes.includes(scope) ? (scope as WindowScope) : 'all',
    name: query.get('name') ?? '',
    startNow: true,
    startAt: toLocalInput(now),
    length: '1h',
    until: toLocalInput(now + HOUR),
    reason: '',
    stored: null,
  };
}

/** The form of an existing window: its start and end as they are. */
export function editDraft(kind: WindowKind, w: WindowRead): Draft {
  return {
    kind,
    scope: w.scope,
    name: w.name ?? '',
    startNow: false,
    startAt: toLocalInput(w.starts),
    length: 'until',
    until: toLocalInput(w.ends),
    reason: w.reason ?? '',
    stored: { starts: w.starts, ends: w.ends },
  };
}

/** The API body of a filled form; what cannot be sent is an Invalid at its field. */
export function toBody(d: Draft, now: number): WindowBody {
  const errors: Record<string, string> = {};
  const name = d.name.trim();
  if (d.scope !== 'all' && name === '') errors.name = `choose a ${d.scope}`;
  // An input shows minutes only: an untouched one means the stored time, to the millisecond.
  const timeOf = (value: string, stored: number | undefined) =>
    stored !== undefined && value === toLocalInput(stored) ? stored : fromLocalInput(value);
  const starts = d.startNow ? now : timeOf(d.startAt, d.stored?.starts);
  if (starts === null) errors.starts = 'give a date and time';
  const preset = lengths.find((l) => l.value === d.length)?.ms ?? null;
  const ends = preset === null ? timeOf(d.until, d.stored?.ends) : starts === null ? null : starts + preset;
  if (preset === null && ends === null) errors.ends = 'give a date and time';
  if (Object.keys(errors).length > 0 || starts === null || ends === null) throw new Invalid(errors);
  return {
    scope: d.scope,
    name: d.scope === 'all' ? null : name,
    starts,
    ends,
    reason: d.reason.trim() || null,
  };
}

/** What a window holds, in words: "everything", "service shop", "host web1". */
export function scopeText(w: Pick<WindowBody, 'scope' | 'name'>): string {
  return w.scope === 'all' ? 'everything' : `${w.scope} ${w.name ?? ''}`;
}

/** When a window holds: "until 14:00 (since 12:00)" in force, "12:00 to 14:00" ahead. */
export function whenText(w: Pick<WindowRead, 'starts' | 'ends' | 'active'>, now = Date.now()): string {
  return w.active
    ? `until ${formatWhen(w.ends, now)} (since ${formatWhen(w.starts, now)})`
    : `${formatWhen(w.starts, now)} to ${formatWhen(w.ends, now)}`;
}

/** The windows screen with a new window's form filled for a service or a host (the service and incident pages). */
export function newWindowHref(kind: WindowKind, name: string, scope: 'service' | 'host' = 'service'): string {
  return `/settings/windows?${new URLSearchParams({ new: kind, scope, name })}`;
}

/** A service's maintenance now, in words: "In maintenance until 14:00: database upgrade". */
export function maintenanceText(m: MaintenanceNow, now = Date.now()): string {
  return `In maintenance until ${formatWhen(m.until, now)}${m.reason ? `: ${m.reason}` : ''}`;
}
