import type { Assertion } from '../protocol/check.ts';
import { assertionFields } from '../protocol/kinds.ts';
import type { RunOutcome } from './run.ts';

/**
 * Evaluating a check's `expect` list. Every assertion is evaluated; all must pass for `up`. A failing
 * assertion marked `degraded: true` makes the run degraded, any other failure makes it down (down wins).
 * An assertion this version does not know (a newer mon's, stored before a downgrade) fails: it cannot
 * be said to hold.
 */

/** What a run saw, as far as assertions can look at it. */
export type Observed = {
  latencyMs: number | null;
  /** HTTP status code. */
  statusCode?: number;
  /** HTTP response body (at most the first 1 MiB), decoded as UTF-8. */
  body?: string;
  /** DNS answers (addresses and CNAME targets). Present for DNS checks only. */
  answers?: string[];
};

export type Verdict = { status: RunOutcome['status']; failures: string[] };

export function evaluate(expect: readonly Assertion[], observed: Observed): Verdict {
  const failures: string[] = [];
  let down = false;
  let degraded = false;
  for (const assertion of expect) {
    const failure = check(assertion, observed);
    if (failure === null) continue;
    failures.push(failure);
    if (assertion.degraded) degraded = true;
    else down = true;
  }
  return { status: down ? 'down' : degraded ? 'degraded' : 'up', failures };
}

/** Whether an HTTP status matches a code or a pattern such as `2xx`. */
export function statusMatches(expected: number | string, actual: number): boolean {
  if (typeof expected === 'number') return expected === actual;
  return /^[1-5]xx$/.test(expected) && Math.floor(actual / 100) === Number(expected[0]);
}

/** Whether an assertion list needs the response body. */
export function needsBody(expect: readonly Assertion[]): boolean {
  return expect.some(
    (a) =>
      a.bodyContains !== undefined ||
      a.bodyNotContains !== undefined ||
      a.json !== undefined ||
      a.equals !== undefined,
  );
}

/**
 * Returns null when the assertion holds, else a short description of the failure. Descriptions quote
 * what the check expects, never what the response held: status codes and latencies are shown, body
 * text and JSON values are not.
 */
function check(a: Assertion, o: Observed): string | null {
  const unknown = Object.keys(a).find((key) => !assertionFields.includes(key));
  if (unknown !== undefined) return `assertion ${quote(unknown)} is not one this version of mon knows`;
  if (a.status !== undefined) {
    if (o.statusCode === undefined) return `expected status ${a.status}, got no response`;
    return statusMatches(a.status, o.statusCode) ? null : `status ${o.statusCode}, expected ${a.status}`;
  }
  if (a.responseTimeBelowMs !== undefined) {
    if (o.latencyMs === null) return `no response time, expected below ${a.responseTimeBelowMs} ms`;
    return o.latencyMs < a.responseTimeBelowMs
      ? null
      : `took ${Math.round(o.latencyMs)} ms, expected below ${a.responseTimeBelowMs} ms`;
  }
  if (a.bodyContains !== undefined) {
    if (o.answers) {
      return o.answers.some((x) => x.includes(a.bodyContains!))
        ? null
        : `no answer contains ${quote(a.bodyContains)}`;
    }
    return (o.body ?? '').includes(a.bodyContains) ? null : `body does not contain ${quote(a.bodyContains)}`;
  }
  if (a.bodyNotContains !== undefined) {
    return (o.body ?? '').includes(a.bodyNotContains) ? `body contains ${quote(a.bodyNotContains)}` : null;
  }
  if (a.json !== undefined) return checkJson(a.json, a.equals, o.body ?? '');
  if (a.equals !== undefined) {
    const want = String(a.equals);
    if (o.answers) {
      return o.answers.includes(want) ? null : `no answer equals ${quote(want)}`;
    }
    return (o.body ?? '').trim() === want ? null : `body does not equal ${quote(want)}`;
  }
  return 'the assertion tests nothing this version of mon knows';
}

/**
 * A failed JSON assertion says what was expected and what kind of value was found, never the value:
 * the document is the peer's (often internal) and details reach everyone who can read the check.
 */
function checkJson(path: string, equals: Assertion['equals'], body: string): string | null {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return `body is not JSON (for ${path})`;
  }
  const found = jsonPath(doc, path);
  if (!found.exists) return `${path} is missing`;
  if (equals === undefined)
    return found.value ? null : `expected ${path} to be a true value, got ${falsyName(found.value)}`;
  if (found.value === equals) return null;
  return `expected ${path} to equal ${show(equals)}, got ${kindOf(found.value, typeof equals)}`;
}

/** A falsy JSON value is one of these four: naming it tells no more than its type. */
function falsyName(value: unknown): string {
  if (value === '') return 'an empty string';
  return JSON.stringify(value) ?? 'nothing';
}

/** "a different string" when the type is the expected one, else the JSON type found. */
function kindOf(value: unknown, expected: string): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  if (type === expected) return `a different ${type}`;
  return type === 'object' ? 'an object' : `a ${type}`;
}

/** Looks up `$.a.b[0]`, `a.b` or `$` in a parsed JSON document. */
export function jsonPath(doc: unknown, path: string): { exists: boolean; value?: unknown } {
  const steps: (string | number)[] = [];
  const rest = path.startsWith('$') ? path.slice(1) : `.${path}`;
  const token = /\.([\w-]+)|\[(\d+)\]/y;
  for (let pos = 0; pos < rest.length; pos = token.lastIndex) {
    token.lastIndex = pos;
    const m = token.exec(rest);
    if (!m) return { exists: false };
    steps.push(m[1] !== undefined ? m[1] : Number(m[2]));
  }
  let value: unknown = doc;
  for (const step of steps) {
    if (typeof step === 'number') {
      if (!Array.isArray(value) || step >= value.length) return { exists: false };
      value = value[step];
    } else {
      if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, step))
        return { exists: false };
      value = (value as Record<string, unknown>)[step];
    }
  }
  return { exists: true, value };
}

/** Text the check's author wrote (never a response's), shortened. */
function quote(s: string): string {
  return JSON.stringify(s.length > 60 ? `${s.slice(0, 57)}...` : s);
}

/** A value the check's author wrote (never a response's), shortened. */
function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
