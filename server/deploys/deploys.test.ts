import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { within } from '../testing.ts';
import { deployServer } from './testkit.ts';

/** `POST /api/deploys`, status by status (SPEC "Deploy API"), over real HTTP on loopback. */

test('a deploy is recorded at its arrival (201); the same service and version within 2 minutes merges (200)', async (t) => {
  const kit = await deployServer();
  t.after(() => kit.server.dispose());
  const start = kit.clock.now();
  const first = await kit.post('/api/deploys', {
    service: 'shop',
    version: 'v1.4.0',
    by: 'ann',
    url: 'https://ci.example.com/runs/1',
  });
  assert.equal(first.status, 201);
  assert.equal(first.body.merged, false);
  assert.equal(typeof first.body.event_id, 'number');
  assert.ok(
    kit.keys.some((k) => k.includes('overview') && k.includes('incidents') && k.includes('service:shop')),
    'timelines, the overview and the service are told after the commit',
  );

  await kit.clock.advance(60_000);
  const again = await kit.post('/api/deploys', {
    service: 'shop',
    version: 'v1.4.0',
    by: 'bob',
    description: 'second report of the same rollout',
  });
  assert.equal(again.status, 200);
  assert.deepEqual(again.body, { event_id: first.body.event_id, merged: true });

  const other = await kit.post('/api/deploys', { service: 'shop', version: 'v1.5.0' });
  assert.equal(other.status, 201);
  assert.notEqual(other.body.event_id, first.body.event_id);

  assert.deepEqual(
    kit.deploys().map(({ id, ts, service, version, by, url, description, sources }) => ({
      id,
      ts,
      service,
      version,
      by,
      url,
      description,
      sources,
    })),
    [
      {
        id: first.body.event_id,
        ts: start,
        service: 'shop',
        version: 'v1.4.0',
        by: 'ann',
        url: 'https://ci.example.com/runs/1',
        description: 'second report of the same rollout',
        sources: ['api'],
      },
      {
        id: other.body.event_id,
        ts: start + 60_000,
        service: 'shop',
        version: 'v1.5.0',
        by: null,
        url: null,
        description: null,
        sources: ['api'],
      },
    ],
    'the merge keeps the first time and by, and fills what was empty',
  );
  assert.equal(await kit.counter('ingestAccepted', 'deploy'), 3);
});

test('400: an unreadable body, an unknown field or a missing service or version; nothing is stored', async (t) => {
  const kit = await deployServer();
  t.after(() => kit.server.dispose());
  const cases: [string, Record<string, unknown> | string, string, RegExp][] = [
    ['not JSON', '{"service": "shop",', 'application/json', /not valid JSON/],
    ['an empty JSON body', '', 'application/json', /empty/],
    ['a JSON list', '[{"service": "shop", "version": "1"}]', 'application/json', /JSON object/],
    ['an unknown field', { service: 'shop', version: '1', color: 'red' }, '', /^color: unknown field$/],
    ['no service', { version: '1' }, '', /^service: required$/],
    ['a null version', { service: 'shop', version: null }, '', /^version: required$/],
    ['no version in a form', 'service=shop', 'application/x-www-form-urlencoded', /^version: required$/],
    [
      'a form field twice',
      'service=shop&version=1&version=2',
      'application/x-www-form-urlencoded',
      /^version: give it once$/,
    ],
    ['an unknown form field', 'service=shop&version=1&env=prod', 'text/plain', /^env: unknown field$/],
    [
      'JSON sent as a form',
      '{"service": "shop", "version": "1"}',
      'application/x-www-form-urlencoded',
      /looks like JSON/,
    ],
  ];
  for (const [what, body, contentType, detail] of cases) {
    const res = await kit.post('/api/deploys', body, contentType ? { contentType } : {});
    assert.equal(res.status, 400, what);
    assert.match(String(res.headers.get('content-type')), /application\/problem\+json/, what);
    assert.match(String(res.body.detail), detail, what);
  }
  const latin1 = await kit.post('/api/deploys', Buffer.from('service=shop&version=caf\xe9', 'latin1'));
  assert.equal(latin1.status, 400);
  assert.equal(latin1.body.detail, 'the body is not UTF-8 text');
  assert.deepEqual(kit.deploys(), []);
  assert.equal(await kit.counter('ingestRejected', 'invalid'), cases.length + 1);
});

test('401 without a valid token, 403 for tokens of other scopes; nothing is stored', async (t) => {
  const kit = await deployServer();
  t.after(() => kit.server.dispose());
  const body = { service: 'shop', version: '1' };
  assert.equal((await kit.post('/api/deploys', body, { scope: null })).status, 401);
  const unknown = await kit.send('/api/deploys', JSON.stringify(body), {
    authorization: `Bearer mon_${'0'.repeat(40)}`,
    'content-type': 'application/json',
  });
  assert.equal(unknown.status, 401);
  for (const scope of ['read', 'write', 'mcp'] as const) {
    const res = await kit.post('/api/deploys', body, { scope });
    assert.equal(res.status, 403, scope);
    assert.match(String(res.body.detail), new RegExp(`a ${scope} token cannot use this route`));
  }
  assert.deepEqual(kit.deploys(), []);
});

test('413 over 64 KiB; a body of exactly 64 KiB is read', async (t) => {
  const kit = await deployServer();
  t.after(() => kit.server.dispose());
  const json = JSON.stringify({ service: 'shop', version: '1' });
  const exact = json.padEnd(64 * 1024, ' ');
  assert.equal((await kit.post('/api/deploys', exact, { contentType: 'application/json' })).status, 201);
  const over = await kit.post('/api/deploys', `${exact} `, { contentType: 'application/json' });
  assert.equal(over.status, 413);
  assert.match(String(over.headers.get('content-type')), /problem\+json/);
  assert.equal(kit.deploys().length, 1);
  assert.equal(await kit.counter('ingestRejected', 'invalid'), 1);
});

test('422: an empty required value, a field over 500 characters, a wrong form or an unknown service, which is never created', async (t) => {
  const kit = await deployServer();
  t.after(() => kit.server.dispose());
  const cases: [Record<string, unknown>, string][] = [
    [{ service: '', version: '1' }, 'service: must not be empty'],
    [{ service: 'shop', version: '   ' }, 'version: must not be empty'],
    [{ service: 'shop', version: 'v'.repeat(501) }, 'version: must be at most 500 characters'],
    [
      { service: 'shop', version: '1', description: 'd'.repeat(501) },
      'description: must be at most 500 characters',
    ],
    [{ service: 'shop', version: 1.1 }, 'version: must be text'],
    [
      { service: 'shop', version: '1', by: 'ann\u0000' },
      'by: must not contain control characters, line breaks or invisible formatting',
    ],
    [
      { service: 'shop', version: '1', url: 'javascript:alert(1)' },
      'url: must be an http:// or https:// URL',
    ],
  ];
  for (const [body, detail] of cases) {
    const res = await kit.post('/api/deploys', body);
    assert.equal(res.status, 422, detail);
    assert.equal(res.body.detail, detail);
  }
  const unknown = await kit.post('/api/deploys', { service: 'nope', version: '1' });
  assert.equal(unknown.status, 422);
  assert.match(String(unknown.body.detail), /^service: unknown service "nope"/);
  const services = kit.server.deps.store.read.prepare('SELECT name FROM services ORDER BY name').all();
  assert.deepEqual(
    services.map((s) => s.name),
    ['billing', 'shop'],
    'an unknown service is never created',
  );
  assert.deepEqual(kit.deploys(), []);
  assert.equal(await kit.counter('ingestRejected', 'invalid'), cases.length + 1);

  // At the limits: 500 characters, and empty optional fields count as absent.
  const longest = 'é'.repeat(500);
  const ok = await kit.post('/api/deploys', {
    service: 'shop',
    version: longest,
    by: '',
    url: ' ',
    description: null,
  });
  assert.equal(ok.status, 201);
  const [stored] = kit.deploys();
  assert.equal(stored?.version, longest);
  assert.deepEqual([stored?.by, stored?.url, stored?.description], [null, null, null]);
});

test('form fields: URL-encoded, any other content type, and multipart; a file part is refused', async (t) => {
  const kit = await deployServer();
  t.after(() => kit.server.dispose());
  const encoded = await kit.post(
    '/api/deploys',
    'service=shop&version=abc123&by=ci%20bot&url=https%3A%2F%2Fci.example.com%2F7&description=line%201%0Aline%202',
  );
  assert.equal(encoded.status, 201);
  const plain = await kit.post('/api/deploys', 'service=billing&version=9', { contentType: 'text/plain' });
  assert.equal(plain.status, 201);

  const form = new FormData();
  form.set('service', 'shop');
  form.set('version', 'def456');
  form.set('by', 'multipart');
  const multipart = async () => {
    const encoded = new Response(form);
    return kit.post('/api/deploys', Buffer.from(await encoded.arrayBuffer()), {
      contentType: encoded.headers.get('content-type')!,
    });
  };
  assert.equal((await multipart()).status, 201);
  form.set('description', new Blob(['release notes']), 'notes.txt');
  const refused = await multipart();
  assert.equal(refused.status, 400);
  assert.equal(refused.body.detail, 'description: must be a text field, not a file');

  assert.deepEqual(
    kit.deploys().map((d) => [d.service, d.version, d.by, d.url, d.description]),
    [
      ['shop', 'abc123', 'ci bot', 'https://ci.example.com/7', 'line 1\nline 2'],
      ['billing', '9', null, null, null],
      ['shop', 'def456', 'multipart', null, null],
    ],
  );
});

test('503 with Retry-After while another process holds the lock, nothing stored; a retry is recorded, and a second retry merges', async (t) => {
  const kit = await deployServer({ store: { maxWaitMs: 300 } });
  t.after(() => kit.server.dispose());
  const other = new DatabaseSync(join(kit.server.dataDir, 'mon.db'));
  t.after(() => other.close());
  const body = { service: 'shop', version: 'v2' };
  other.exec('BEGIN IMMEDIATE');
  const refused = await kit.post('/api/deploys', body);
  other.exec('ROLLBACK');
  assert.equal(refused.status, 503);
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  assert.match(String(refused.headers.get('content-type')), /problem\+json/);
  assert.deepEqual(kit.deploys(), [], 'a 503 stored nothing');

  const retry = await kit.post('/api/deploys', body);
  assert.equal(retry.status, 201);
  // The client did not hear the answer (a proxy timed out) and sends the deploy once more.
  await kit.clock.advance(30_000);
  const again = await kit.post('/api/deploys', body);
  assert.equal(again.status, 200);
  assert.deepEqual(again.body, { event_id: retry.body.event_id, merged: true });
  assert.equal(kit.deploys().length, 1);
});

test('the deploy time is when the request arrived, not when storage took it', async (t) => {
  const kit = await deployServer();
  t.after(() => kit.server.dispose());
  const other = new DatabaseSync(join(kit.server.dataDir, 'mon.db'));
  t.after(() => other.close());
  const arrival = kit.clock.now();
  other.exec('BEGIN IMMEDIATE');
  const pending = kit.post('/api/deploys', { service: 'shop', version: 'v3' });
  await within(3000, 'the deploy waits for the lock', () => kit.server.deps.store.writer.depth > 0);
  await kit.clock.advance(90_000);
  other.exec('ROLLBACK');
  assert.equal((await pending).status, 201);
  assert.equal(kit.deploys()[0]?.ts, arrival);
});
