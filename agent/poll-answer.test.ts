import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type PollAnswer, pollAnswerSchema } from '../protocol/agent.ts';
import { readPollAnswer } from './poll-answer.ts';

const answer: PollAnswer = {
  protocol: 1,
  assignment: '3f2a9c01d4e5b6a7c8d9e0f1',
  host: 'web-1',
  settings: { sampleEveryMs: 15_000 },
  checks: [
    {
      id: 'c1',
      name: 'api',
      kind: 'http',
      target: 'https://api.internal/health',
      method: 'GET',
      headers: { accept: 'application/json' },
      everyMs: 60_000,
      timeoutMs: 10_000,
      expect: [{ status: '2xx' }, { json: '$.ok', equals: true }],
      allowLinkLocal: false,
      env: { REGION: 'eu' },
    },
    {
      id: 'c2',
      name: 'db',
      kind: 'tcp',
      target: 'db.internal:5432',
      method: null,
      headers: {},
      everyMs: 30_000,
      timeoutMs: 5000,
      expect: [],
      allowLinkLocal: true,
      env: {},
    },
  ],
  commands: [{ id: 'k1', name: 'queue-length' }],
};

/** `answer` with one field replaced (`undefined` removes it). */
function changed(path: string[], value: unknown): unknown {
  const copy = structuredClone(answer) as unknown as Record<string, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
  if (value === undefined) delete at[path.at(-1)!];
  else at[path.at(-1)!] = value;
  return copy;
}

test('an answer the server builds (it passes pollAnswerSchema) is read as it is', () => {
  assert.ok(pollAnswerSchema.safeParse(answer).success);
  assert.deepEqual(readPollAnswer(JSON.parse(JSON.stringify(answer))), answer);
  const empty = { ...answer, checks: [], commands: [] };
  assert.deepEqual(readPollAnswer(empty), empty);
});

test('what pollAnswerSchema refuses in the fields the agent uses, the hand check refuses too', () => {
  const refused: [string, unknown][] = [
    ['not an object', 'ok'],
    ['a proxy page that is not JSON', undefined],
    ['a list', [answer]],
    ['no protocol', changed(['protocol'], undefined)],
    ['protocol 0', changed(['protocol'], 0)],
    ['assignment a number', changed(['assignment'], 3)],
    ['no host', changed(['host'], undefined)],
    ['no settings', changed(['settings'], undefined)],
    ['sampleEveryMs 0', changed(['settings', 'sampleEveryMs'], 0)],
    ['sampleEveryMs a string', changed(['settings', 'sampleEveryMs'], '15000')],
    ['sampleEveryMs 1.5', changed(['settings', 'sampleEveryMs'], 1.5)],
    ['checks not a list', changed(['checks'], {})],
    ['a check of a kind this agent cannot run', changed(['checks', '0', 'kind'], 'grpc')],
    ['a check without a target', changed(['checks', '0', 'target'], undefined)],
    ['a check whose method is a number', changed(['checks', '0', 'method'], 1)],
    ['a header value that is not text', changed(['checks', '0', 'headers'], { a: 1 })],
    ['everyMs negative', changed(['checks', '1', 'everyMs'], -1)],
    ['timeoutMs missing', changed(['checks', '1', 'timeoutMs'], undefined)],
    ['expect not a list', changed(['checks', '1', 'expect'], {})],
    ['an assertion that is not an object', changed(['checks', '0', 'expect'], ['2xx'])],
    ['allowLinkLocal a string', changed(['checks', '1', 'allowLinkLocal'], 'yes')],
    ['env values not text', changed(['checks', '0', 'env'], { REGION: null })],
    ['commands missing', changed(['commands'], undefined)],
    ['a command without a name', changed(['commands', '0', 'name'], undefined)],
  ];
  for (const [what, value] of refused) {
    assert.equal(pollAnswerSchema.safeParse(value).success, false, `the schema takes ${what}`);
    assert.equal(readPollAnswer(value), null, what);
  }
});
