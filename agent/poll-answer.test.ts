import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AssignedCheck, type PollAnswer, pollAnswerSchema } from '../protocol/agent.ts';
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
  assert.deepEqual(readPollAnswer(JSON.parse(JSON.stringify(answer))), { answer, unreadable: [] });
  const empty = { ...answer, checks: [], commands: [] };
  assert.deepEqual(readPollAnswer(empty), { answer: empty, unreadable: [] });
});

test('what pollAnswerSchema refuses in the frame of the answer, the hand check refuses too', () => {
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
    ['commands missing', changed(['commands'], undefined)],
  ];
  for (const [what, value] of refused) {
    assert.equal(pollAnswerSchema.safeParse(value).success, false, `the schema takes ${what}`);
    assert.equal(readPollAnswer(value), null, what);
  }
});

test('a check or command the schema refuses is left out alone and named; the rest of the answer is read', () => {
  const [api, db] = answer.checks as [AssignedCheck, AssignedCheck];
  const fields = 'its fields are not ones this agent reads';
  const named = (check: AssignedCheck) => ({ id: check.id, name: check.name, kind: check.kind, why: fields });
  // What is changed, the check named unreadable, the check kept.
  const unreadable: [string, unknown, unknown, AssignedCheck][] = [
    [
      'a check of a kind this agent cannot run (a newer server)',
      changed(['checks', '0', 'kind'], 'grpc'),
      { id: 'c1', name: 'api', kind: 'grpc', why: 'kind grpc is not one this agent runs' },
      db,
    ],
    ['a check without a target', changed(['checks', '0', 'target'], undefined), named(api), db],
    ['a check whose method is a number', changed(['checks', '0', 'method'], 1), named(api), db],
    ['a header value that is not text', changed(['checks', '0', 'headers'], { a: 1 }), named(api), db],
    ['everyMs negative', changed(['checks', '1', 'everyMs'], -1), named(db), api],
    ['timeoutMs missing', changed(['checks', '1', 'timeoutMs'], undefined), named(db), api],
    ['expect not a list', changed(['checks', '1', 'expect'], {}), named(db), api],
    ['an assertion that is not an object', changed(['checks', '0', 'expect'], ['2xx']), named(api), db],
    [
      'an assertion this agent does not know (a newer server): it would read as met',
      changed(['checks', '0', 'expect'], [{ status: '2xx' }, { headerContains: 'x-ready' }]),
      { ...named(api), why: 'assertion headerContains is not one this agent knows' },
      db,
    ],
    [
      'a field this agent does not know on an assertion it knows',
      changed(['checks', '0', 'expect'], [{ status: '2xx', caseless: true }]),
      { ...named(api), why: 'assertion caseless is not one this agent knows' },
      db,
    ],
    ['a status that is a list', changed(['checks', '0', 'expect'], [{ status: [200] }]), named(api), db],
    [
      'an assertion that tests nothing',
      changed(['checks', '0', 'expect'], [{ degraded: true }]),
      named(api),
      db,
    ],
    [
      'degraded a string',
      changed(['checks', '0', 'expect'], [{ status: 200, degraded: 'no' }]),
      named(api),
      db,
    ],
    ['allowLinkLocal a string', changed(['checks', '1', 'allowLinkLocal'], 'yes'), named(db), api],
    ['env values not text', changed(['checks', '0', 'env'], { REGION: null }), named(api), db],
    [
      'a check that is not an object',
      changed(['checks', '1'], 7),
      { id: '?', name: '?', kind: '?', why: 'it is not an object' },
      api,
    ],
  ];
  for (const [what, value, left, kept] of unreadable) {
    assert.equal(pollAnswerSchema.safeParse(value).success, false, `the schema takes ${what}`);
    assert.deepEqual(
      readPollAnswer(value),
      { answer: { ...answer, checks: [kept] }, unreadable: [left] },
      what,
    );
  }
  assert.deepEqual(readPollAnswer(changed(['commands', '0', 'name'], undefined)), {
    answer: { ...answer, commands: [] },
    unreadable: [{ id: 'k1', name: '?', kind: 'command', why: fields }],
  });
});
