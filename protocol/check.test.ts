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

const messagesOf = (input: unknown) => {
  const r = checkBodySchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

test('names of checks, services and hosts must show: no broken text, controls or invisible-only names', () => {
  const heartbeat = { ...base, kind: 'heartbeat', everyMs: 60_000 };
  for (const bad of [
    'a\uD800b', // a lone surrogate half
    'ab\u0007', // a control character
    'a\u2028b', // a line separator
    '\u200B\u200D', // zero-width characters only
    '\u3164', // a Hangul filler: a letter that shows nothing
    '\uFE0F\u0301', // a variation selector and a combining mark, nothing to carry them
    '\u2800', // the blank braille pattern
    ' \u00A0\u3000 ', // spaces of several widths only
  ]) {
    assert.equal(fieldOf({ ...heartbeat, name: bad }), 'name', JSON.stringify(bad));
    assert.equal(fieldOf({ ...heartbeat, service: bad }), 'service', JSON.stringify(bad));
    assert.equal(
      fieldOf({ ...base, kind: 'tcp', target: 'db:5432', from: bad }),
      'from',
      JSON.stringify(bad),
    );
  }
  for (const good of ['Ödön', 'ставка', '東京 api', 'a-b_c.d', '🙂 happy', 'x']) {
    assert.equal(fieldOf({ ...heartbeat, name: good }), null, good);
  }
  assert.deepEqual(messagesOf({ ...heartbeat, name: '\u3164' }), [
    'name: must contain a visible character (a letter, digit or sign)',
  ]);
});

test('targets that would be fetched as something else than written are refused', () => {
  const target = (kind: string, value: string) => fieldOf({ ...base, kind, target: value });
  for (const value of [
    'http://127.0.0.1/a\r\nb',
    'http://x.io/\tpath',
    'http://x.io/a\u0000',
    'http://x.io/\u202Eevil',
  ]) {
    assert.equal(target('http', value), 'target', JSON.stringify(value));
  }
  assert.equal(target('http', 'http://x.io/a\uD800'), 'target');
  assert.equal(target('http', `http://x.io/\${KEY}\nHost: other`), 'target', 'also with a reference');
  assert.equal(target('tcp', 'db\u200B.internal:5432'), 'target');
  assert.deepEqual(messagesOf({ ...base, kind: 'http', target: 'http://x.io/a\r\nb' }), [
    'target: must not contain control characters, line breaks or invisible formatting',
  ]);
});

test('headers are sent as written or refused: controls, non-Latin-1, framing and connection headers', () => {
  const http = (headers: unknown) => fieldOf({ ...base, kind: 'http', target: 'https://x.io', headers });
  assert.equal(http({ Accept: 'application/json', 'X-Name': 'Ödön\tand tab' }), null);
  for (const value of ['a\rb', 'a\u0000', 'a\u007F', 'a\u0085', 'price in €', 'smile 🙂']) {
    assert.equal(http({ 'X-Value': value }), 'headers.X-Value', JSON.stringify(value));
  }
  for (const name of [
    'Host',
    'content-length',
    'Transfer-Encoding',
    'Connection',
    'Upgrade',
    'Keep-Alive',
    'Proxy-Connection',
    'TE',
    'Trailer',
    'Expect',
    'Proxy-Authorization',
  ]) {
    assert.equal(http({ [name]: 'x' }), `headers.${name}`, name);
  }
  for (const name of ['Bad Name', 'X-Ödön', 'X:1', '']) {
    assert.equal(http({ [name]: 'x' }), `headers.${name}`, JSON.stringify(name));
  }
  assert.equal(http({ Accept: 'a', accept: 'b' }), 'headers.accept', 'twice, in another case');
  assert.deepEqual(messagesOf({ ...base, kind: 'http', target: 'https://x.io', headers: { Host: 'x' } }), [
    'headers.Host: cannot be set: mon writes the framing and connection headers of a request itself',
  ]);
});

test('link-local and cloud metadata targets need allowLinkLocal; private ranges do not', () => {
  const check = (kind: string, target: string, allowLinkLocal?: boolean) =>
    fieldOf({ ...base, kind, target, ...(allowLinkLocal === undefined ? {} : { allowLinkLocal }) });
  for (const [kind, target] of [
    ['http', 'http://169.254.169.254/latest/meta-data/'],
    ['http', 'http://[fe80::1]/'],
    ['http', 'http://[fd00:ec2::254]/'],
    ['http', 'http://[::ffff:169.254.169.254]/'],
    ['http', 'http://[::ffff:a9fe:a9fe]/'],
    ['http', 'http://[64:ff9b::169.254.169.254]/'],
    ['http', 'http://0xa9fea9fe/'],
    ['http', 'http://metadata.google.internal/computeMetadata/v1/'],
    ['http', 'http://METADATA.google.internal./'],
    ['tcp', '169.254.10.1:80'],
    ['tcp', '[febf::1]:22'],
    ['ping', '169.254.169.254'],
    ['ping', 'metadata.google.internal'],
  ] as const) {
    assert.equal(check(kind, target), 'target', target);
    assert.equal(check(kind, target, true), null, `${target} allowed`);
  }
  for (const [kind, target] of [
    ['http', 'http://10.0.0.1/'],
    ['http', 'http://192.168.1.1/'],
    ['http', 'http://127.0.0.1:8080/'],
    ['http', 'http://[::1]/'],
    ['http', 'http://[fd00::1]/'],
    ['http', 'http://[fec0::1]/'],
    ['tcp', '172.16.0.1:5432'],
    ['ping', '169.255.0.1'],
  ] as const) {
    assert.equal(check(kind, target), null, target);
  }
  assert.deepEqual(messagesOf({ ...base, kind: 'http', target: 'http://169.254.169.254/' }), [
    'target: refused 169.254.169.254: a link-local address, where cloud metadata services answer; set allowLinkLocal to true to check it',
  ]);
  assert.equal(
    fieldOf({ ...base, kind: 'dns', target: 'example.com', allowLinkLocal: true }),
    'allowLinkLocal',
  );
  assert.equal(
    fieldOf({ ...base, kind: 'heartbeat', everyMs: 60_000, allowLinkLocal: false }),
    'allowLinkLocal',
  );
});

test('every refusal is in mon words, never the schema library default', () => {
  const libraryWords = /^(Invalid|Too (big|small)|Unrecognized|Expected|Required)\b|expected \w+, received/;
  const http = { ...base, kind: 'http', target: 'https://x.io' };
  const bodies: unknown[] = [
    { ...base, kind: 'nope' },
    { ...base, name: 5, kind: 'http', target: 'https://x.io' },
    { ...http, target: 5 },
    { ...http, target: 'x'.repeat(3000) },
    { ...http, method: 'GRAB' },
    { ...http, everyMs: 'often' },
    { ...http, everyMs: 10_000.5 },
    { ...http, everyMs: 8 * 86_400_000 },
    { ...http, timeoutMs: 50 },
    { ...http, timeoutMs: 200_000 },
    { ...http, headers: 'x' },
    { ...http, headers: { X: 5 } },
    { ...http, headers: { X: 'x'.repeat(9000) } },
    { ...http, expect: 'x' },
    { ...http, expect: ['x'] },
    { ...http, expect: Array.from({ length: 21 }, () => ({ status: 200 })) },
    { ...http, expect: [{ status: 700 }] },
    { ...http, expect: [{ status: true }] },
    { ...http, expect: [{ bodyContains: '' }] },
    { ...http, expect: [{ bodyNotContains: 3 }] },
    { ...http, expect: [{ json: 3 }] },
    { ...http, expect: [{ json: '$.a', equals: [1] }] },
    { ...http, expect: [{ responseTimeBelowMs: -1 }] },
    { ...http, expect: [{ responseTimeBelowMs: 1e9 }] },
    { ...http, expect: [{ status: 200, degraded: 'yes' }] },
    { ...http, expect: [{ status: 200, colour: 'red' }] },
    { ...http, allowLinkLocal: 'yes' },
    { ...http, extra: 1 },
    { ...base, kind: 'heartbeat', cron: 5 },
    { ...base, kind: 'heartbeat', cron: 'x'.repeat(300) },
    { ...base, kind: 'heartbeat', everyMs: 60_000, timezone: 5 },
    { ...base, kind: 'heartbeat', everyMs: 60_000, graceMs: -1 },
    { ...base, kind: 'heartbeat', everyMs: 60_000, graceMs: 8 * 86_400_000 },
  ];
  for (const body of bodies) {
    const messages = messagesOf(body);
    assert.ok(messages.length > 0, JSON.stringify(body));
    for (const message of messages) {
      assert.doesNotMatch(message.slice(message.indexOf(': ') + 2), libraryWords, JSON.stringify(body));
    }
  }
  assert.deepEqual(messagesOf({ ...http, extra: 1 }), [': unknown field "extra"']);
  assert.deepEqual(messagesOf({ service: 'core', kind: 'http', target: 'https://x.io' }), ['name: required']);
  assert.deepEqual(messagesOf({ name: 'a', service: 'core' }), ['kind: required']);
  assert.deepEqual(messagesOf({ ...http, everyMs: 8 * 86_400_000 }), [
    'everyMs: must be at most 604800000 (7 days)',
  ]);
});
