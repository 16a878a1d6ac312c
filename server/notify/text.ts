import { spanText } from '../../protocol/durations.ts';
import type { Message, MessageAlert } from './message.ts';

/**
 * The words of a notification, shared by every channel kind so that a Slack message and an email say
 * the same thing: the headline, the state, the failing alerts with their times, the likely cause.
 * Kinds add their platform's formatting and cut to its limits with `clip`.
 */

const changeWord: Record<Message['change'], string> = {
  opened: 'Incident opened',
  reminder: 'Still open, not acknowledged',
  acknowledged: 'Acknowledged',
  resolved: 'Resolved',
  test: 'Test message',
};

/** "Incident opened: api: login down". */
export function headline(m: Message): string {
  return m.change === 'test' ? 'mon test message' : `${changeWord[m.change]}: ${m.incident.title}`;
}

/** The change in a word or two, for tags and colours: "Incident opened", "Resolved". */
export function changeLabel(m: Message): string {
  return changeWord[m.change];
}

/** UTC time as "2026-11-23 14:05 UTC": channels reach people in other time zones. */
export function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The state line: "Open since 14:05 UTC (12 min)", "Resolved after 1 h 3 min", "Acknowledged by ana". */
export function stateLine(m: Message): string {
  const { incident } = m;
  if (m.change === 'test') return 'This is a test of the channel. No incident is open.';
  if (incident.resolvedAt !== null)
    return `Resolved at ${utc(incident.resolvedAt)} after ${spanText(incident.resolvedAt - incident.startedAt)}`;
  const since = `Open since ${utc(incident.startedAt)} (${spanText(m.ts - incident.startedAt)})`;
  if (incident.acknowledgedAt !== null)
    return `${since}, acknowledged by ${incident.acknowledgedBy ?? 'someone'}`;
  return since;
}

/** One alert: "login (api) failing since 14:05 UTC: connection refused". */
export function alertLine(a: MessageAlert): string {
  return `${alertName(a)} ${alertState(a)}`;
}

/**
 * Which alert, where: "login (api)", "disk (web-1)", "queue-depth (shop, on web-1)" for a check an
 * agent runs; the first half of `alertLine`. A container alert's name already says its host
 * ("api-1 on web-1").
 */
export function alertName(a: MessageAlert): string {
  const onHost = a.host !== null && !a.name.endsWith(` on ${a.host}`) ? `, on ${a.host}` : '';
  const where = a.service
    ? ` (${a.service}${onHost}${a.impact ? ', impact' : ''})`
    : a.host
      ? ` (${a.host})`
      : '';
  return `${a.name}${where}`;
}

/** How it stands: "failing since 14:05 UTC: connection refused"; the second half of `alertLine`. */
export function alertState(a: MessageAlert): string {
  const when =
    a.recoveredAt !== null ? `recovered at ${utc(a.recoveredAt)}` : `failing since ${utc(a.since)}`;
  return `${when}: ${a.detail}`;
}

/** "and 3 more" when the message lists fewer alerts than failed. */
export function moreAlerts(m: Message, shown: number): string | null {
  const total = m.incident.resolvedAt !== null ? m.alertCount : m.failingCount;
  return total > shown ? `and ${total - shown} more` : null;
}

/** The likely cause in a line, or the words for none. */
export function causeLine(m: Message): string {
  if (m.change === 'test') return '';
  if (!m.cause) return 'No likely cause found.';
  return `Likely cause: ${m.cause.title}`;
}

/**
 * The evidence of the likely cause, a line each: "deploy v42 by ana at 14:01 UTC (https://ci.example/42)".
 * A platform with markup gives `text` for what and who (escaping) and `link` for the address.
 */
export function evidenceLines(
  m: Message,
  text: (words: string) => string = (words) => words,
  link: (url: string) => string = (url) => url,
): string[] {
  return (m.cause?.evidence ?? []).map(
    (e) =>
      `${text(e.what)}${e.by ? ` by ${text(e.by)}` : ''} at ${utc(e.ts)}${e.url ? ` (${link(e.url)})` : ''}`,
  );
}

/**
 * `text` cut to at most `max` characters (UTF-16 units, which is what the platforms count), ending in
 * "…" when cut; never splits a surrogate pair.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/**
 * `text` cut to at most `max` bytes of UTF-8 (what byte-counting platforms such as ntfy measure),
 * ending in "…" when cut; never splits a character.
 */
export function clipBytes(text: string, max: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return text;
  // The cut falls before byte `end`; back up while that byte continues a character begun before it.
  let end = Math.max(0, max - 3);
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return `${bytes.subarray(0, end).toString('utf8')}…`;
}

/**
 * The message after its headline, as plain text: the state, the failing alerts (at most `maxAlerts`,
 * each cut to `maxLine` characters), the likely cause with its evidence, the incident's URL. For
 * platforms that show the headline apart (a title) and for `plainText`.
 */
export function detailText(m: Message, maxAlerts = 10, maxLine = Number.POSITIVE_INFINITY): string {
  const lines = [stateLine(m)];
  if (m.failing.length > 0) {
    lines.push('');
    for (const a of m.failing.slice(0, maxAlerts)) lines.push(clip(`- ${alertLine(a)}`, maxLine));
    const more = moreAlerts(m, Math.min(m.failing.length, maxAlerts));
    if (more) lines.push(`- ${more}`);
  }
  const cause = causeLine(m);
  if (cause) {
    lines.push('', cause);
    for (const e of evidenceLines(m)) lines.push(clip(`  ${e}`, maxLine));
  }
  if (m.url) lines.push('', m.url);
  return lines.join('\n');
}

/** The whole message as plain text, for email bodies and platforms without formatting. */
export function plainText(m: Message, maxAlerts = 10): string {
  return `${headline(m)}\n${detailText(m, maxAlerts)}`;
}

/**
 * The lines under the headline (state, failing alerts, "and N more", likely cause with its evidence)
 * in at most `max` characters joined with newlines: the state and the cause are kept (the cause cut to
 * a quarter of `max`), and the alerts take what is left, as many whole lines as fit (each cut to 500),
 * at most `maxAlerts`, with the rest counted in "and N more". For platforms with a length limit.
 */
export function bodyWithin(m: Message, max: number, maxAlerts = 10): string[] {
  const state = clip(stateLine(m), Math.floor(max / 4));
  const causeText = causeLine(m);
  const cause = causeText
    ? clip([causeText, ...evidenceLines(m).map((e) => `  ${e}`)].join('\n'), Math.floor(max / 4))
    : '';
  const causeLines = cause ? ['', ...cause.split('\n')] : [];
  // Room for the alerts: a blank line before them and an "and N more" line after.
  const reserve = `\n\n- and ${m.alertCount} more`.length;
  let room = max - state.length - (cause ? cause.length + 2 : 0) - reserve;
  const alerts: string[] = [];
  for (const a of m.failing.slice(0, maxAlerts)) {
    const line = `- ${clip(alertLine(a), 500)}`;
    if (line.length + 1 > room) break;
    alerts.push(line);
    room -= line.length + 1;
  }
  const more = moreAlerts(m, alerts.length);
  if (more) alerts.push(`- ${more}`);
  return [state, ...(alerts.length > 0 ? ['', ...alerts] : []), ...causeLines];
}

/** `text` safe inside HTML elements and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => htmlEntity[c]!);
}

const htmlEntity: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
