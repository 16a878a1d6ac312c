import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Assertion } from '../protocol/check.ts';
import { evaluate, jsonPath, needsBody, statusMatches } from './assertions.ts';

test('status codes and patterns', () => {
  assert.equal(statusMatches('2xx', 204), true);
  assert.equal(statusMatches('3xx', 204), false);
  assert.equal(statusMatches(301, 301), true);
  assert.equal(statusMatches(301, 302), false);
});

test('JSON paths', () => {
  const doc = { a: { b: [1, { c: 'x' }] }, 'dash-key': true, z: null };
  assert.deepEqual(jsonPath(doc, '$.a.b[0]'), { exists: true, value: 1 });
  assert.deepEqual(jsonPath(doc, 'a.b[1].c'), { exists: true, value: 'x' });
  assert.deepEqual(jsonPath(doc, '$.dash-key'), { exists: true, value: true });
  assert.deepEqual(jsonPath(doc, '$.z'), { exists: true, value: null });
  assert.deepEqual(jsonPath(doc, '$'), { exists: true, value: doc });
  assert.equal(jsonPath(doc, '$.a.b[5]').exists, false);
  assert.equal(jsonPath(doc, '$.a.nope').exists, false);
  assert.equal(jsonPath(doc, '$.a.b.length').exists, false);
  assert.equal(jsonPath([7], '[0]').exists, false, 'a bare path starts with a key');
  assert.deepEqual(jsonPath([7], '$[0]'), { exists: true, value: 7 });
});

test('all assertions must pass; degraded failures degrade, others take it down', () => {
  const observed = { latencyMs: 120, statusCode: 200, body: '{"status":"ok","n":3,"ready":false}' };
  assert.deepEqual(evaluate([{ status: '2xx' }, { json: '$.status', equals: 'ok' }], observed), {
    status: 'up',
    failures: [],
  });
  assert.deepEqual(evaluate([{ responseTimeBelowMs: 100, degraded: true }], observed), {
    status: 'degraded',
    failures: ['took 120 ms, expected below 100 ms'],
  });
  const both = evaluate(
    [
      { responseTimeBelowMs: 100, degraded: true },
      { json: '$.n', equals: 4 },
    ],
    observed,
  );
  assert.equal(both.status, 'down');
  assert.deepEqual(both.failures, [
    'took 120 ms, expected below 100 ms',
    'expected $.n to equal 4, got a different number',
  ]);
  assert.deepEqual(evaluate([{ json: '$.ready' }], observed).failures, [
    'expected $.ready to be a true value, got false',
  ]);
  assert.deepEqual(evaluate([{ json: 'missing' }], observed).failures, ['missing is missing']);
  assert.deepEqual(evaluate([{ bodyNotContains: 'ok' }], observed).failures, ['body contains "ok"']);
  assert.deepEqual(evaluate([{ bodyContains: 'nope' }], observed).failures, ['body does not contain "nope"']);
  assert.deepEqual(evaluate([{ json: '$.a' }], { latencyMs: 1, body: '<html>' }).failures, [
    'body is not JSON (for $.a)',
  ]);
  assert.equal(evaluate([{ equals: 'hello' }], { latencyMs: 1, body: 'hello\n' }).status, 'up');
});

test('DNS answers: equals and contains look at every answer', () => {
  const observed = { latencyMs: 3, answers: ['10.1.2.3', 'web.example.net'] };
  assert.equal(evaluate([{ equals: '10.1.2.3' }, { bodyContains: 'example' }], observed).status, 'up');
  assert.deepEqual(evaluate([{ equals: '10.1.2.4' }], observed).failures, ['no answer equals "10.1.2.4"']);
  assert.deepEqual(evaluate([{ bodyContains: 'zzz' }], observed).failures, ['no answer contains "zzz"']);
});

test('needsBody', () => {
  assert.equal(needsBody([{ status: 200 }, { responseTimeBelowMs: 5 }]), false);
  assert.equal(needsBody([{ json: '$.a' }]), true);
});

test('failures say what was expected and what kind of value came, never what the response held', () => {
  const secret = 'internal-db-password-7f3a';
  const doc = {
    status: `degraded: ${secret}`,
    count: 41,
    flag: true,
    nested: { token: secret },
    list: [secret],
    empty: '',
    nothing: null,
  };
  const observed = { latencyMs: 5, statusCode: 500, body: JSON.stringify(doc) };
  const failures = (expect: Parameters<typeof evaluate>[0]) => evaluate(expect, observed).failures;
  assert.deepEqual(
    failures([
      { json: '$.status', equals: 'ok' },
      { json: '$.count', equals: 42 },
      { json: '$.flag', equals: false },
      { json: '$.status', equals: 1 },
      { json: '$.nested', equals: 'x' },
      { json: '$.list', equals: 'x' },
      { json: '$.nothing', equals: 'x' },
      { json: '$.empty' },
      { json: '$.nothing' },
      { equals: 'all good' },
      { bodyContains: 'all good' },
      { bodyNotContains: secret },
      { status: 200 },
    ]),
    [
      'expected $.status to equal "ok", got a different string',
      'expected $.count to equal 42, got a different number',
      'expected $.flag to equal false, got a different boolean',
      'expected $.status to equal 1, got a string',
      'expected $.nested to equal "x", got an object',
      'expected $.list to equal "x", got an array',
      'expected $.nothing to equal "x", got null',
      'expected $.empty to be a true value, got an empty string',
      'expected $.nothing to be a true value, got null',
      'body does not equal "all good"',
      'body does not contain "all good"',
      // What the author wrote may be shown, also when the body holds it.
      `body contains "${secret}"`,
      'status 500, expected 200',
    ],
  );
  for (const failure of failures([
    { json: '$.status', equals: 'ok' },
    { json: '$.nested.token', equals: 'x' },
  ])) {
    assert.ok(!failure.includes(secret) && !failure.includes('41') && !failure.includes('degraded'), failure);
  }
});

test('an assertion this version does not know fails, never reads as met (a newer mon stored it, then a downgrade)', () => {
  const observed = { latencyMs: 120, statusCode: 200, body: 'ok' };
  const newer = [{ status: '2xx' }, { headerContains: 'x-ready' }] as unknown as Assertion[];
  assert.deepEqual(evaluate(newer, observed), {
    status: 'down',
    failures: ['assertion "headerContains" is not one this version of mon knows'],
  });
  // A field it does not know on an assertion it knows may change what it means: failed too.
  const widened = [{ status: '2xx', within: 'x' }] as unknown as Assertion[];
  assert.equal(evaluate(widened, observed).status, 'down');
  // One testing nothing it knows, and marked degraded: degraded, as its author said.
  assert.deepEqual(evaluate([{ degraded: true }] as Assertion[], observed), {
    status: 'degraded',
    failures: ['the assertion tests nothing this version of mon knows'],
  });
});
