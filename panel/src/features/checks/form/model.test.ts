// biome-ignore-all lint/suspicious/noTemplateCurlyInString: header values here are literal ${NAME} references
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CheckBody } from '../../../../../protocol/check.ts';
import {
  type AssertionRow,
  bodyFromForm,
  emptyForm,
  type FormState,
  fieldLabel,
  fieldsShown,
  formFromBody,
  newKey,
  readableMessage,
} from './model.ts';

const form = (patch: Partial<FormState>): FormState => ({ ...emptyForm('web'), name: ' home ', ...patch });
const row = (patch: Partial<AssertionRow>): AssertionRow => ({
  key: newKey(),
  type: 'status',
  value: '',
  equals: '',
  degraded: false,
  ...patch,
});

test('a new form is an HTTP check run every minute, in the given service', () => {
  const f = emptyForm('shop');
  assert.equal(f.kind, 'http');
  assert.equal(f.service, 'shop');
  assert.equal(f.every, '1m');
  assert.equal(f.method, 'GET');
});

test('an HTTP form becomes its body: trimmed text, durations in ms, headers, assertions', () => {
  const built = bodyFromForm(
    form({
      target: ' https://example.com/health ',
      method: 'POST',
      every: '30s',
      timeout: '5s',
      from: ' web1 ',
      headers: [
        { key: newKey(), name: ' Authorization ', value: '${API_TOKEN}' },
        { key: newKey(), name: 'X-Kept', value: null },
        { key: newKey(), name: ' ', value: '' },
      ],
      expect: [
        row({ type: 'status', value: '2xx' }),
        row({ type: 'status', value: '200' }),
        row({ type: 'json', value: '$.ok', equals: 'true', degraded: true }),
        row({ type: 'equals', value: 'OK' }),
        row({ type: 'responseTimeBelowMs', value: '500' }),
      ],
    }),
  );
  assert.deepEqual(built.errors, {});
  assert.equal(built.expectErrors.size, 0);
  assert.deepEqual(built.body, {
    name: 'home',
    service: 'web',
    kind: 'http',
    target: 'https://example.com/health',
    method: 'POST',
    headers: { Authorization: '${API_TOKEN}', 'X-Kept': null },
    everyMs: 30_000,
    from: 'web1',
    timeoutMs: 5000,
    expect: [
      { status: '2xx' },
      { status: 200 },
      { json: '$.ok', equals: true, degraded: true },
      { equals: 'OK' },
      { responseTimeBelowMs: 500 },
    ],
  } satisfies CheckBody);
});

test('equals values are typed: true, false and numbers as such, quoted text as text', () => {
  const values = (texts: string[]) =>
    bodyFromForm(
      form({
        kind: 'dns',
        target: 'example.com',
        expect: texts.map((value) => row({ type: 'equals', value })),
      }),
    ).body.expect?.map((a) => a.equals);
  assert.deepEqual(values(['false', '-1.5', '"1"', '192.0.2.10']), [false, -1.5, '1', '192.0.2.10']);
});

test('unreadable durations and empty assertion values are errors found before sending', () => {
  const empty = row({ type: 'status', value: ' ' });
  const slow = row({ type: 'responseTimeBelowMs', value: 'fast' });
  const built = bodyFromForm(
    form({ target: 'https://x.io', every: 'soon', timeout: '1 fortnight', expect: [empty, slow] }),
  );
  assert.deepEqual(built.errors, {
    everyMs: 'use a duration such as 30s, 5m, 1h or 1d',
    timeoutMs: 'use a duration such as 30s, 5m, 1h or 1d',
  });
  assert.deepEqual(
    [...built.expectErrors],
    [
      [empty.key, 'required'],
      [slow.key, 'use a whole number of milliseconds, e.g. 500'],
    ],
  );
  assert.deepEqual(built.expectRows, [empty.key, slow.key]);
});

test('assertions the kind does not take stay in the form but are not sent', () => {
  const body = row({ type: 'bodyContains', value: 'ok' });
  const fast = row({ type: 'responseTimeBelowMs', value: '50' });
  const built = bodyFromForm(form({ kind: 'tcp', target: 'db:5432', expect: [body, fast] }));
  assert.deepEqual(built.body.expect, [{ responseTimeBelowMs: 50 }]);
  assert.deepEqual(built.expectRows, [fast.key], 'the row sent as expect[0]');
  assert.equal(built.body.method, undefined);
});

test('heartbeats send their schedule and grace time, never a target', () => {
  const cron = bodyFromForm(
    form({
      kind: 'heartbeat',
      target: 'ignored',
      schedule: 'cron',
      cron: ' 0 3 * * * ',
      timezone: 'Europe/Berlin',
      grace: '10m',
    }),
  );
  assert.deepEqual(cron.body, {
    name: 'home',
    service: 'web',
    kind: 'heartbeat',
    cron: '0 3 * * *',
    timezone: 'Europe/Berlin',
    graceMs: 600_000,
  } satisfies CheckBody);
  const every = bodyFromForm(form({ kind: 'heartbeat', schedule: 'every', every: '1d', cron: '0 3 * * *' }));
  assert.deepEqual(every.body, { name: 'home', service: 'web', kind: 'heartbeat', everyMs: 86_400_000 });
});

test('domain checks send no interval and no agent host', () => {
  const built = bodyFromForm(form({ kind: 'domain', target: 'example.com', every: '1m', from: 'web1' }));
  assert.deepEqual(built.body, { name: 'home', service: 'web', kind: 'domain', target: 'example.com' });
});

test('a stored body fills the form and comes back unchanged', () => {
  const bodies: CheckBody[] = [
    {
      name: 'api',
      service: 'core',
      kind: 'http',
      target: 'https://api.example.com/',
      method: 'HEAD',
      headers: { Authorization: null },
      allowLinkLocal: true,
      everyMs: 90_000,
      timeoutMs: 2500,
      expect: [
        { equals: 'OK' },
        { status: 204, degraded: true },
        { json: '$.n', equals: '1' },
        { bodyNotContains: 'error' },
      ],
    },
    {
      name: 'dns',
      service: 'core',
      kind: 'dns',
      target: 'example.com',
      everyMs: 60_000,
      expect: [{ equals: 'true' }],
    },
    { name: 'ping', service: 'core', kind: 'ping', target: '192.0.2.1', everyMs: 10_000, from: 'edge' },
    {
      name: 'job',
      service: 'core',
      kind: 'heartbeat',
      cron: '*/5 * * * *',
      timezone: 'UTC',
      graceMs: 300_000,
    },
  ];
  for (const body of bodies) assert.deepEqual(bodyFromForm(formFromBody(body)).body, body, body.name);
});

test('each kind shows its own fields', () => {
  const shown = (kind: FormState['kind'], schedule: FormState['schedule'] = 'every') => [
    ...fieldsShown(kind, schedule),
  ];
  const common = ['kind', 'name', 'service', 'expect'];
  assert.deepEqual(shown('http'), [
    ...common,
    'target',
    'timeoutMs',
    'method',
    'headers',
    'allowLinkLocal',
    'everyMs',
    'from',
  ]);
  assert.deepEqual(shown('tcp'), [...common, 'target', 'timeoutMs', 'allowLinkLocal', 'everyMs', 'from']);
  assert.deepEqual(shown('domain'), [...common, 'target', 'timeoutMs']);
  assert.deepEqual(shown('heartbeat'), [...common, 'everyMs', 'graceMs']);
  assert.deepEqual(shown('heartbeat', 'cron'), [...common, 'cron', 'timezone', 'graceMs']);
});

test("server messages speak the form's words", () => {
  assert.equal(readableMessage('http', 'everyMs', 'must be at least 10000'), 'must be at least 10 s');
  assert.equal(
    readableMessage('http', 'timeoutMs', 'must not exceed everyMs'),
    'must not exceed “Run every”',
  );
  assert.equal(
    readableMessage('heartbeat', 'graceMs', 'must be below everyMs'),
    'must be below “Expected every”',
  );
  assert.equal(readableMessage('http', 'target', 'port 65536 is out of range'), 'port 65536 is out of range');
  assert.equal(fieldLabel('tcp', 'target'), 'Host and port');
  assert.equal(fieldLabel('heartbeat', 'target'), 'Target');
  assert.equal(fieldLabel('http', 'command'), undefined);
});
