import type { AssignedCheck, PollAnswer } from '../protocol/agent.ts';
import { checkKinds } from '../protocol/kinds.ts';

/**
 * The answer of `GET /agent/v1/poll`, checked by hand against the shape of `PollAnswer`: the server
 * builds it with `pollAnswerSchema` (protocol/agent.ts), and the agent only needs to tell it apart from
 * something else answering 200 (a proxy's page) and keep a field of the wrong type from reaching the
 * runners. Loading the schema library for this one check would cost the agent about a third of its
 * memory. Lengths and assertion details are the server's to check, as it does when a check is saved.
 * agent/poll-answer.test.ts holds it to the schema.
 */
export function readPollAnswer(value: unknown): PollAnswer | null {
  if (!isObject(value)) return null;
  const { protocol, assignment, host, settings, checks, commands } = value;
  if (!isPositiveInt(protocol) || typeof assignment !== 'string' || typeof host !== 'string') return null;
  if (!isObject(settings) || !isPositiveInt(settings.sampleEveryMs)) return null;
  if (!Array.isArray(checks) || !checks.every(isAssignedCheck)) return null;
  if (!Array.isArray(commands) || !commands.every(isCommand)) return null;
  return value as PollAnswer;
}

function isAssignedCheck(check: unknown): check is AssignedCheck {
  return (
    isObject(check) &&
    typeof check.id === 'string' &&
    typeof check.name === 'string' &&
    (checkKinds as readonly unknown[]).includes(check.kind) &&
    typeof check.target === 'string' &&
    (check.method === null || typeof check.method === 'string') &&
    isTextRecord(check.headers) &&
    isPositiveInt(check.everyMs) &&
    isPositiveInt(check.timeoutMs) &&
    Array.isArray(check.expect) &&
    check.expect.every(isObject) &&
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
