import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deployServer } from './testkit.ts';

/** `POST /api/changes`: a change bound to a service, a host, both or neither; validated like deploys. */

test('changes are recorded at their arrival, bound to a service, a host, both or neither (201)', async (t) => {
  const kit = await deployServer();
  t.after(() => kit.server.dispose());
  const start = kit.clock.now();
  const migration = await kit.post('/api/changes', {
    what: 'database migration 0042',
    service: 'billing',
    by: 'ann',
    url: 'https://git.example.com/acme/billing/pull/42',
    description: 'adds an index on invoices\nruns for about a minute',
  });
  assert.equal(migration.status, 201);
  assert.deepEqual(Object.keys(migration.body), ['event_id']);
  assert.ok(
    kit.keys.some((k) => k.includes('overview') && k.includes('incidents') && k.includes('service:billing')),
  );

  await kit.clock.advance(5_000);
  const kernel = await kit.post('/api/changes', 'what=kernel+upgrade&host=web-1&by=ops', {
    contentType: 'application/x-www-form-urlencoded',
  });
  assert.equal(kernel.status, 201);
  const dns = await kit.post('/api/changes', { what: 'DNS moved to a new provider', service: '', host: '' });
  assert.equal(dns.status, 201);
  const both = await kit.post('/api/changes', {
    what: 'nginx config reload',
    service: 'shop',
    host: 'web-1',
  });
  assert.equal(both.status, 201);

  assert.deepEqual(kit.changes(), [
    {
      id: migration.body.event_id,
      ts: start,
      kind: 'change',
      what: 'database migration 0042',
      service: 'billing',
      host: null,
      by: 'ann',
      url: 'https://git.example.com/acme/billing/pull/42',
      description: 'adds an index on invoices\nruns for about a minute',
    },
    {
      id: kernel.body.event_id,
      ts: start + 5_000,
      kind: 'change',
      what: 'kernel upgrade',
      service: null,
      host: 'web-1',
      by: 'ops',
      url: null,
      description: null,
    },
    {
      id: dns.body.event_id,
      ts: start + 5_000,
      kind: 'change',
      what: 'DNS moved to a new provider',
      service: null,
      host: null,
      by: null,
      url: null,
      description: null,
    },
    {
      id: both.body.event_id,
      ts: start + 5_000,
      kind: 'change',
      what: 'nginx config reload',
      service: 'shop',
      host: 'web-1',
      by: null,
      url: null,
      description: null,
    },
  ]);
  const sources = kit.server.deps.store.read.prepare('SELECT DISTINCT source FROM changes').all();
  assert.deepEqual(
    sources.map((r) => r.source),
    ['api'],
  );
  assert.equal(await kit.counter('ingestAccepted', 'change'), 4);
});

test('changes refuse what deploys refuse: 400, 401, 403, 413 and 422 naming the field; nothing is stored', async (t) => {
  const kit = await deployServer();
  t.after(() => kit.server.dispose());
  const refusals: [Record<string, unknown> | string, number, string][] = [
    [{ service: 'shop' }, 400, 'what: required'],
    [{ what: 'x', version: '1' }, 400, 'version: unknown field'],
    ['{"what": ', 400, 'the body is not valid JSON'],
    [{ what: '' }, 422, 'what: must not be empty'],
    [{ what: 'w'.repeat(501) }, 422, 'what: must be at most 500 characters'],
    [{ what: 'x', by: 'b'.repeat(501) }, 422, 'by: must be at most 500 characters'],
    [{ what: 'x', host: 'web/1' }, 422, 'host: must be a host name: must not contain /, \\, ? or #'],
    [{ what: 'x', host: 'h'.repeat(101) }, 422, 'host: must be a host name: must be at most 100 characters'],
    [{ what: 'x', url: 'ftp://files.example.com/' }, 422, 'url: must be an http:// or https:// URL'],
  ];
  for (const [body, status, detail] of refusals) {
    const res = await kit.post(
      '/api/changes',
      body,
      typeof body === 'string' ? { contentType: 'application/json' } : {},
    );
    assert.equal(res.status, status, detail);
    assert.equal(res.body.detail, detail);
  }
  const unknown = await kit.post('/api/changes', { what: 'x', service: 'nope' });
  assert.equal(unknown.status, 422);
  assert.match(String(unknown.body.detail), /^service: unknown service "nope"/);
  const made = kit.server.deps.store.read
    .prepare("SELECT count(*) AS n FROM services WHERE name = 'nope'")
    .get();
  assert.equal(made?.n, 0, 'an unknown service is never created');

  assert.equal((await kit.post('/api/changes', { what: 'x' }, { scope: null })).status, 401);
  for (const scope of ['read', 'write', 'mcp'] as const) {
    assert.equal((await kit.post('/api/changes', { what: 'x' }, { scope })).status, 403, scope);
  }
  const big = JSON.stringify({ what: 'x' }).padEnd(64 * 1024 + 1, ' ');
  assert.equal((await kit.post('/api/changes', big, { contentType: 'application/json' })).status, 413);

  assert.deepEqual(kit.changes(), []);
  assert.equal(await kit.counter('ingestRejected', 'invalid'), refusals.length + 2);
});
