import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IncidentRead, IncidentsList } from '../../protocol/incidents.ts';
import { authTestServer, browser } from '../auth/test-helpers.ts';
import { addHost } from '../checks/testkit.ts';
import { FakeClock } from '../clock.ts';

/** `POST /api/v1/incidents/{id}/ack` (docs/incidents.md "Acknowledging") with real accounts and tokens. */

test('write callers acknowledge an open incident once; viewers and read tokens cannot; unknown ids are 404', async (t) => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const server = await authTestServer({ clock });
  t.after(() => server.dispose());
  const write = { authorization: `Bearer ${await server.tokenOf('write')}` };
  const read = { authorization: `Bearer ${await server.tokenOf('read')}` };
  await addHost(server, 'web1');
  const viewer = browser(await server.cookieOf(await server.addUser('viewer@example.com', 'viewer')));
  const admin = browser(await server.cookieOf(await server.addUser('admin@example.com', 'admin')));
  const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>) => {
    const res = await server.app.inject({ method, url, headers });
    return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as unknown) : null };
  };

  const made = await server.app.inject({
    method: 'POST',
    url: '/api/v1/checks',
    headers: write,
    payload: { name: 'home', service: 'shop', kind: 'tcp', target: 'shop.internal:443', from: 'web1' },
  });
  assert.equal(made.statusCode, 201);
  const checkId = (made.json() as { id: string }).id;
  const down = { status: 'down' as const, latencyMs: null, detail: 'connection refused' };
  await server.checks.engine.recordRun(checkId, down, clock.now());
  await clock.advance(10_000);
  await server.checks.engine.recordRun(checkId, down, clock.now());
  const list = (await call('GET', '/api/v1/incidents', viewer)).body as IncidentsList;
  const id = list.incidents[0]!.id;
  const ack = `/api/v1/incidents/${id}/ack`;

  const refused = await call('POST', ack, viewer);
  assert.equal(refused.status, 403);
  assert.equal((refused.body as { title: string }).title, 'only admins can do this');
  assert.equal((await call('POST', ack, read)).status, 403);
  assert.equal((await call('POST', '/api/v1/incidents/0123456789abcdef/ack', write)).status, 404);
  const unchanged = (await call('GET', `/api/v1/incidents/${id}`, read)).body as IncidentRead;
  assert.equal(unchanged.acknowledgedAt, null, 'refusals change nothing');

  await clock.advance(60_000);
  const at = clock.now();
  assert.equal((await call('POST', ack, write)).status, 204);
  await clock.advance(60_000);
  assert.equal((await call('POST', ack, admin)).status, 204, 'again: nothing to do');
  const acknowledged = (await call('GET', `/api/v1/incidents/${id}`, viewer)).body as IncidentRead;
  assert.equal(acknowledged.state, 'open', 'it stays open');
  assert.equal(acknowledged.acknowledgedAt, at);
  assert.equal(acknowledged.acknowledgedBy, 'write token');
  assert.deepEqual(
    acknowledged.timeline
      .filter((r) => r.kind === 'acknowledged')
      .map((r) => ({ ts: r.ts, title: r.title, by: r.by })),
    [{ ts: at, title: 'acknowledged by write token', by: 'write token' }],
  );

  // A person's acknowledgement names their email; a resolved incident cannot be acknowledged.
  const cart = await server.app.inject({
    method: 'POST',
    url: '/api/v1/checks',
    headers: write,
    payload: { name: 'blog-home', service: 'blog', kind: 'tcp', target: 'blog.internal:443', from: 'web1' },
  });
  const blog = (cart.json() as { id: string }).id;
  await server.checks.engine.recordRun(blog, down, clock.now());
  await server.checks.engine.recordRun(blog, down, clock.now());
  const second = ((await call('GET', '/api/v1/incidents', read)).body as IncidentsList).incidents[0]!;
  assert.notEqual(second.id, id);
  assert.equal((await call('POST', `/api/v1/incidents/${second.id}/ack`, admin)).status, 204);
  const byAdmin = (await call('GET', `/api/v1/incidents/${second.id}`, read)).body as IncidentRead;
  assert.equal(byAdmin.acknowledgedBy, 'admin@example.com');

  assert.equal((await call('DELETE', `/api/v1/checks/${checkId}`, write)).status, 204);
  const resolved = await call('POST', ack, write);
  assert.equal(resolved.status, 409);
  assert.match(JSON.stringify(resolved.body), /resolved/);
});
