import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../lib/api.ts';
import { localErrors, rowErrors, serverErrors, strayErrors } from './errors.ts';
import { type Built, fieldsShown } from './model.ts';

const problem = (status: number, detail?: string) => new ApiError(status, 'request failed', detail, null);
const built = (patch: Partial<Built>): Built => ({
  body: { name: 'home', service: 'web', kind: 'http' },
  errors: {},
  expectRows: [],
  expectErrors: new Map(),
  ...patch,
});

test('errors found before sending: fields first, then assertion rows by the index they are sent at', () => {
  assert.equal(localErrors(built({ expectRows: [7, 9] })), null);
  const errors = localErrors(
    built({
      errors: { timeoutMs: 'use a duration such as 30s, 5m, 1h or 1d' },
      expectRows: [7, 9, 12],
      expectErrors: new Map([[12, 'required']]),
    }),
  );
  assert.deepEqual(errors, {
    timeoutMs: 'use a duration such as 30s, 5m, 1h or 1d',
    'expect[2]': 'required',
  });
  assert.deepEqual(Object.keys(errors!), ['timeoutMs', 'expect[2]'], 'the first one gets the focus');
});

test("a 422 lands at the field it names, in the form's words", () => {
  assert.deepEqual(serverErrors(problem(422, 'everyMs: must be at least 10000'), 'http', 0), {
    everyMs: 'must be at least 10 s',
  });
  assert.deepEqual(serverErrors(problem(422, 'check.target: must be a URL'), 'http', 0), {
    target: 'must be a URL',
  });
  assert.deepEqual(serverErrors(problem(422, 'timeoutMs: must not exceed everyMs'), 'http', 0), {
    timeoutMs: 'must not exceed “Run every”',
  });
});

test('an assertion error lands at the row sent there; past the rows sent, at the assertions', () => {
  assert.deepEqual(
    serverErrors(problem(422, 'expect[1].status: must be a status such as 200 or 2xx'), 'http', 2),
    {
      'expect[1]': 'must be a status such as 200 or 2xx',
    },
  );
  assert.deepEqual(serverErrors(problem(422, 'expect[2]: not accepted for http checks'), 'http', 2), {
    expect: 'not accepted for http checks',
  });
});

test('a header error names the header; a taken name lands at the name', () => {
  assert.deepEqual(serverErrors(problem(422, 'headers.Bad Name: must be a header name'), 'http', 0), {
    headers: 'Bad Name: must be a header name',
  });
  assert.deepEqual(serverErrors(problem(409, 'the name home is taken by a service'), 'http', 0), {
    name: 'The name home is taken by a service',
  });
});

test('other errors belong to the whole form', () => {
  assert.equal(serverErrors(problem(409, 'this check is defined in mon.toml'), 'http', 0), null);
  assert.equal(serverErrors(problem(422, 'no field named here'), 'http', 0), null);
  assert.equal(serverErrors(problem(503, 'the writer queue is full'), 'http', 0), null);
  assert.equal(serverErrors(problem(0), 'http', 0), null);
  assert.equal(serverErrors(new Error('offline'), 'http', 0), null);
});

test('row errors follow the row that was sent, even after rows move', () => {
  const errors = { 'expect[0]': 'required', 'expect[2]': 'too slow', everyMs: 'x' };
  assert.deepEqual(
    [...rowErrors(errors, [4, 8, 15])],
    [
      [4, 'required'],
      [15, 'too slow'],
    ],
  );
  assert.deepEqual([...rowErrors(errors, [])], []);
});

test('errors at fields the form does not show are listed with their labels', () => {
  const errors = {
    everyMs: 'x',
    cron: 'not five fields',
    command: 'not here',
    'expect[0]': 'y',
    expect: 'z',
  };
  assert.deepEqual(strayErrors(errors, 'heartbeat', fieldsShown('heartbeat', 'every')), [
    'Cron expression: not five fields',
    'command: not here',
  ]);
  assert.deepEqual(strayErrors(errors, 'heartbeat', fieldsShown('heartbeat', 'cron')), [
    'Expected every: x',
    'command: not here',
  ]);
});
