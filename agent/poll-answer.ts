import type { AssignedCheck, PollAnswer } from '../protocol/agent.ts';
import { assertionFields, assertionKeys, checkKinds } from '../protocol/kinds.ts';

/** A check of the answer this agent cannot read (a kind it does not know, a field it cannot take). */
export type UnreadableCheck = {
  /** Its id, name and kind as sent, or `?` where they are not text. */
  id: string;
  name: string;
  kind: string;
  /**
   * Why: `kind grpc is not one this agent runs`, `assertion headerContains is not one this agent
   * knows`, `its fields are not ones this agent reads`.
   */
  why: string;
};

/**
 * The answer of `GET /agent/v1/poll`, checked by hand against the shape of `PollAnswer`: the server
 * builds it with `pollAnswerSchema` (protocol/agent.ts), and the agent only needs to tell it apart from
 * something else answering 200 (a proxy's page) and keep a field of the wrong type from reaching the
 * runners. Loading the schema library for this one check would cost the agent about a third of its
 * memory. Lengths and assertion details are the server's to check, as it does when a check is saved.
 * agent/poll-answer.test.ts holds it to the schema.
 *
 * The answer's frame must be read whole (null otherwise); its checks and commands are read one by
 * one: one the agent cannot read (a newer server's check kind, or an assertion or assertion field it
 * does not know, which it could only take as met) is left out and named in `unreadable`, and the
 * others run, so one check never stops the host from being known and sampled.
 */
export function readPollAnswer(value: unknown): { answer: PollAnswer; unreadable: UnreadableCheck[] } | null {
  if (!isObject(value)) return null;
  const { protocol, assignment, host, settings, checks, commands } = value;
  if (!isPositiveInt(protocol) || typeof assignment !== 'string' || typeof host !== 'string') return null;
  if (!isObject(settings) || !isPositiveInt(settings.sampleEveryMs)) return null;
  if (!Array.isArray(checks) || !Array.isArray(commands)) return null;
  const unreadable: UnreadableCheck[] = [];
  const readable: AssignedCheck[] = [];
  for (const check of checks as unknown[]) {
    const why = problemOf(check);
    if (why === null) readable.push(check as AssignedCheck);
    else {
      const { id, name, kind } = isObject(check) ? check : {};
      unreadable.push({ id: textOr(id), name: textOr(name), kind: textOr(kind), why });
    }
  }
  const readableCommands: PollAnswer['commands'] = [];
  for (const command of commands as unknown[]) {
    if (isCommand(command)) readableCommands.push(command);
    else {
      const { id, name } = isObject(command) ? command : {};
      unreadable.push({
        id: textOr(id),
        name: textOr(name),
        kind: 'command',
        why: 'its fields are not ones this agent reads',
      });
    }
  }
  const answer = { ...value, checks: readable, commands: readableCommands } as PollAnswer;
  return { answer, unreadable };
}

/** Why this agent cannot run `check`, or null when it can. */
function problemOf(check: unknown): string | null {
  if (!isObject(check)) return 'it is not an object';
  if (typeof check.kind === 'string' && !(checkKinds as readonly string[]).includes(check.kind))
    return `kind ${check.kind.slice(0, 64)} is not one this agent runs`;
  const expect = Array.isArray(check.expect) ? (check.expect as unknown[]) : [];
  for (const assertion of expect) {
    const field = isObject(assertion)
      ? Object.keys(assertion).find((key) => !assertionFields.includes(key))
      : undefined;
    if (field !== undefined) return `assertion ${field.slice(0, 64)} is not one this agent knows`;
  }
  return isAssignedCheck(check) ? null : 'its fields are not ones this agent reads';
}

/** An assertion of known fields with values of their types, that tests something. */
function isAssertion(a: unknown): boolean {
  if (!isObject(a) || !assertionKeys.some((key) => a[key] !== undefined)) return false;
  const { status, bodyContains, bodyNotContains, json, equals, responseTimeBelowMs, degraded } = a;
  const optional = (value: unknown, ...types: string[]) =>
    value === undefined || types.includes(typeof value);
  return (
    optional(status, 'number', 'string') &&
    optional(bodyContains, 'string') &&
    optional(bodyNotContains, 'string') &&
    optional(json, 'string') &&
    optional(equals, 'string', 'number', 'boolean') &&
    optional(responseTimeBelowMs, 'number') &&
    optional(degraded, 'boolean')
  );
}

function isAssignedCheck(check: Record<string, unknown>): check is AssignedCheck {
  return (
    typeof check.id === 'string' &&
    typeof check.name === 'string' &&
    (checkKinds as readonly unknown[]).includes(check.kind) &&
    typeof check.target === 'string' &&
    (check.method === null || typeof check.method === 'string') &&
    isTextRecord(check.headers) &&
    isPositiveInt(check.everyMs) &&
    isPositiveInt(check.timeoutMs) &&
    Array.isArray(check.expect) &&
    check.expect.every(isAssertion) &&
    typeof check.allowLinkLocal === 'boolean' &&
    isTextRecord(check.env)
  );
}

function isCommand(command: unknown): command is PollAnswer['commands'][number] {
  return isObject(command) && typeof command.id === 'string' && typeof command.name === 'string';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPositiveInt(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

function isTextRecord(value: unknown): value is Record<string, string> {
  return isObject(value) && Object.values(value).every((v) => typeof v === 'string');
}

/** A field of an unreadable check for the log: the text as sent (cut short), or `?`. */
function textOr(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, 128) : '?';
}
