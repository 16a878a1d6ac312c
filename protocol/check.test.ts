import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkBodySchema } from './check.ts';

const base = { name: 'api', service: 'core' };
const fieldOf = (input: unknown) => {
  const r = checkBodySchema.safeParse(input);
  return r.success ? null : r.error.issues.map((i) => i.path.join('.')).join(' ');
};

test('valid bodies of every kind pass', () => {
  for (const body of [
    { ...base, kind: 'http', target: 'https://example.com/health', expect: [{ status: '2xx' }] },
    { ...base, kind: 'tcp', target: 'db.internal:5432', everyMs: 10_000 },
    { ...base, kind: 'dns', target: 'example.com', expect: [{ equals: '93.184.216.34' }] },
    { ...base, kind: 'ping', target: '10.0.0.1', expect: [{ responseTimeBelowMs: 50, degraded: true }] },
    { ...base, kind: 'domain', target: 'example.com' },
    { ...base, kind: 'heartbeat', cron: '0 3 * * *', timezone: 'Europe/Berlin', graceMs: 60_000 },
    { ...base, kind: 'heartbeat', everyMs: 3_600_000 },
  ]) {
    assert.equal(fieldOf(body), null, JSON.stringify(body));
  }
});

test('spec rules name the offending field', () => {
  assert.equal(fieldOf({ ...base, kind: 'http', target: 'https://x.io', everyMs: 9999 }), 'everyMs');
  assert.equal(fieldOf({ ...base, kind: 'domain', target: 'example.com', everyMs: 60_000 }), 'everyMs');
  assert.equal(fieldOf({ ...base, kind: 'domain', target: 'example.com', from: 'web1' }), 'from');
  assert.equal(
    fieldOf({ ...base, kind: 'ping', target: 'x.io', expect: [{ status: 200 }] }),
    'expect.0.status',
  );
  assert.equal(fieldOf({ ...base, kind: 'tcp', target: 'x.io:1', command: 'true' }), 'command');
  assert.equal(fieldOf({ ...base, kind: 'heartbeat' }), 'everyMs');
  assert.equal(fieldOf({ ...base, kind: 'heartbeat', everyMs: 60_000, cron: '* * * * *' }), 'cron');
  assert.equal(fieldOf({ ...base, kind: 'tcp', target: 'no-port' }), 'target');
});

test('cron expressions are checked by the scheduler that runs them', () => {
  assert.equal(fieldOf({ ...base, kind: 'heartbeat', cron: '99 99 * * *' }), 'cron');
  assert.equal(fieldOf({ ...base, kind: 'heartbeat', cron: '61 * * * *' }), 'cron');
  assert.equal(fieldOf({ ...base, kind: 'heartbeat', cron: '0 0 31 2 *' }), 'cron', 'never matches');
  assert.equal(fieldOf({ ...base, kind: 'heartbeat', cron: '0 3 * * *', timezone: 'Mars/Base' }), 'timezone');
});

test('an assertion tests exactly one thing', () => {
  const http = (expect: unknown[]) => fieldOf({ ...base, kind: 'http', target: 'https://x.io', expect });
  assert.equal(http([{ json: '$.ok', equals: true }]), null);
  assert.equal(http([{ json: '$.ok' }]), null);
  assert.equal(http([{ status: 200, equals: 1 }]), 'expect.0.equals');
  assert.equal(http([{ bodyContains: 'x', responseTimeBelowMs: 5 }]), 'expect.0');
  assert.equal(http([{ equals: 1, bodyContains: 'x' }]), 'expect.0.equals');
  assert.equal(http([{ degraded: true }]), 'expect.0');
});

test('header values cannot carry line breaks and their number is bounded', () => {
  const http = (headers: unknown) => fieldOf({ ...base, kind: 'http', target: 'https://x.io', headers });
  const reference = ['$', '{API_KEY}'].join('');
  assert.equal(http({ 'X-Key': reference }), null);
  assert.equal(http({ X: 'a\r\nB: c' }), 'headers.X');
  const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-${i}`, 'v']));
  assert.equal(http(many), 'headers');
});

test('targets with references to environment variables are valid when the references could fill them in', () => {
  const target = (kind: string, value: string) => fieldOf({ ...base, kind, target: value });
  for (const [kind, value] of [
    ['http', `http://127.0.0.1:9/?apikey=\${MY_KEY}`],
    ['http', `https://\${HOST}:\${PORT}/health`],
    ['http', `https://\${USER}:\${PASSWORD}@api.example.com/`],
    ['http', `\${BASE}/health`],
    ['http', `\${STATUS_URL}`],
    ['tcp', `\${DB_HOST}:5432`],
    ['tcp', `db.internal:\${DB_PORT}`],
    ['tcp', `\${DB_HOST}:\${DB_PORT}`],
    ['tcp', `\${DB_ADDRESS}`],
    ['dns', `\${ZONE}.example.com`],
    ['ping', `\${BOX}`],
    ['domain', `\${SHOP}.com`],
    ['domain', `\${DOMAIN}`],
  ]) {
    assert.equal(target(kind!, value!), null, `${kind} ${value}`);
  }
  for (const [kind, value] of [
    ['http', `ftp://\${HOST}/`],
    ['http', `x\${BASE}/health`],
    ['tcp', `\${DB_HOST}:port`],
    ['tcp', `\${DB_HOST}:99999`],
    ['dns', `\${ZONE} example.com`],
    ['ping', `-\${BOX}`],
    ['domain', `exa mple.\${TLD}`],
    ['tcp', `\${1X}:80`],
  ]) {
    assert.equal(target(kind!, value!), 'target', `${kind} ${value}`);
  }
});

test('cron takes five fields only (no seconds) and names carry no invisible format characters', () => {
  assert.equal(fieldOf({ ...base, kind: 'heartbeat', cron: '* * * * * *' }), 'cron');
  assert.equal(fieldOf({ ...base, kind: 'heartbeat', cron: '*/5 * * * *' }), null);
  assert.equal(fieldOf({ ...base, name: 'ab\u202ecd', kind: 'heartbeat', everyMs: 60_000 }), 'name');
});

test('assertions that cannot hold are refused: body tests of HEAD checks, null, an empty JSON path', () => {
  const http = (extra: object) => fieldOf({ ...base, kind: 'http', target: 'https://x.io', ...extra });
  assert.equal(http({ method: 'HEAD', expect: [{ bodyContains: 'x' }] }), 'expect.0.bodyContains');
  assert.equal(
    http({ method: 'HEAD', expect: [{ json: '$.a', equals: 1 }] }),
    'expect.0.json expect.0.equals',
  );
  assert.equal(http({ method: 'HEAD', expect: [{ status: 200 }] }), null);
  assert.equal(http({ expect: [{ json: '$.a', equals: null }] }), 'expect.0.equals');
  assert.equal(http({ expect: [{ json: '' }] }), 'expect.0.json');
  assert.equal(fieldOf({ ...base, kind: 'dns', target: '1.2.3.4' }), 'target');
  assert.equal(http({ headers: { 'Bad Name': 'v' } }), 'headers.Bad Name');
});
