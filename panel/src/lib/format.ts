/** Times in the browser's time zone, durations for people. */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function formatTime(ms: number): string {
  return dateTime.format(ms);
}

/** Today's times show only the clock; older ones the date too. */
export function formatWhen(ms: number, now = Date.now()): string {
  const sameDay = new Date(ms).toDateString() === new Date(now).toDateString();
  return sameDay ? timeOnly.format(ms) : dateTime.format(ms);
}

export function formatDate(ms: number): string {
  return dateOnly.format(ms);
}

/** An ISO 8601 UTC time as the server writes it into details ("expected by 2026-01-01T01:00:00.000Z"). */
const isoTime = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?Z\b/g;

/** A detail from the server with its UTC times in the browser's time zone. */
export function localTimes(text: string): string {
  return text.replace(isoTime, (iso) => formatTime(Date.parse(iso)));
}

/** 850 ms, 12 s, 5 min, 2 h 5 min, 3 d 4 h. */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(abs)} ms`;
  const s = Math.round(abs / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 && m < 10 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 && d < 7 ? `${d} d ${h % 24} h` : `${d} d`;
}

/** "in 3 d", "5 min ago", or "just now" within a second. */
export function formatRelative(ms: number, now = Date.now()): string {
  const diff = ms - now;
  if (Math.abs(diff) < 1000) return 'just now';
  return diff > 0 ? `in ${formatDuration(diff)}` : `${formatDuration(-diff)} ago`;
}

export function formatLatency(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function formatPercent(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  if (value >= 100) return '100%';
  // 99.95 must not read as 100%: keep digits until the value differs from 100.
  const digits = value >= 99.9 ? 3 : value >= 99 ? 2 : 1;
  return `${value.toFixed(digits).replace(/\.?0+$/, '')}%`;
}

/** CPU as percent of one core, which passes 100 on a process using several: 0.4%, 37%, 250%. */
export function formatCpu(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  return `${value < 10 ? value.toFixed(1).replace(/\.0$/, '') : Math.round(value)}%`;
}

const byteUnits = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** 512 B, 1.5 KiB, 12 MiB, 3.8 GiB: binary units, one decimal under 10. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '–';
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < byteUnits.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 10 ? 0 : 1;
  return `${value.toFixed(digits).replace(/\.0$/, '')} ${byteUnits[unit]}`;
}

/** Bytes per second: 1.5 MiB/s. */
export function formatRate(bytesPerSecond: number | null | undefined): string {
  return bytesPerSecond === null || bytesPerSecond === undefined ? '–' : `${formatBytes(bytesPerSecond)}/s`;
}

/** Parses "90s", "5m", "1h 30m", "2d", "1500ms" or a bare number of seconds into milliseconds. */
export function parseDuration(text: string): number | null {
  const trimmed = text.trim().toLowerCase();
  if (!trimmed) return null;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const units: Record<string, number> = {
    ms: 1,
    s: 1000,
    m: 60_000,
    min: 60_000,
    h: 3_600_000,
    d: 86_400_000,
  };
  let total = 0;
  let rest = trimmed.replace(/\s+/g, '');
  while (rest) {
    const match = /^(\d+(?:\.\d+)?)(ms|min|s|m|h|d)/.exec(rest);
    if (!match) return Number.NaN;
    total += Number(match[1]) * units[match[2]!]!;
    rest = rest.slice(match[0].length);
  }
  return Math.round(total);
}
