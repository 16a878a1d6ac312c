import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LiveKey } from '../../protocol/live.ts';
import type { SettingsRead, WindowRead } from '../../protocol/notify.ts';
import { type AuthTestServer, authTestServer, browser } from '../auth/test-helpers.ts';
import { FakeClock } from '../clock.ts';
import { staticConfig } from '../config/service.ts';
import { defaultHostAlerts } from '../hosts/config.ts';
import { fileService } from '../incidents/testkit.ts';
import { int, scalar } from '../store/rows.ts';
import { windowOf, windowsOf } from './read.ts';

/**
 * `POST /api/v1/silences` and `/maintenance`, their PUT and DELETE (docs/api-windows.md) through a
 * whole server with real accounts and tokens: every status, every rule of the body with its field.
 */

const T0 = Date.UTC(2026, 2, 1, 12, 0);
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

let server: AuthTestServer;
let clock: FakeClock;
const as: Record<'none' | 'read' | 'write' | 'deploy' | 'viewer' | 'admin', Record<string, string>> = {
  none: {},
  read: {},
  write: {},
  deploy: {},
  viewer: {},
  admin: {},
};

before(async () => {
  clock = new FakeClock(T0);
  server = await authTestServer({
    clock,
    config: staticConfig({
      // shop runs on web1 and web2; db1 has a [[host]] table of its own.
      services: [fileService('shop', [], ['web1', 'web2']), fileService('blog', [], ['web2'])],
      hosts: [{ name: 'db1', alerts: defaultHostAlerts }],
    }),
  });
  for (const scope of ['read', 'write', 'deploy'] as const) {
    as[scope] = { authorization: `Bearer ${await server.tokenOf(scope)}` };
  }
  as.viewer = browser(await server.cookieOf(await server.addUser('viewer@example.com', 'viewer')));
  as.admin = browser(await server.cookieOf(await server.addUser('admin@example.com', 'admin')));
  // A panel service: made with its first check.
  const made = await call('POST', '/api/v1/checks', 'write', {
    name: 'api-home',
    service: 'api',
    kind: 'tcp',
    target: 'api.internal:443',
    from: 'web1',
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
});

after(() => server.dispose());

async function call(method: 'POST' | 'PUT' | 'DELETE', url: string, who: keyof typeof as, payload?: unknown) {
  const res = await server.app.inject({
    method,
    url,
    headers: { ...as[who], ...(typeof payload === 'string' ? { 'content-type': 'application/json' } : {}) },
    ...(payload === undefined ? {} : { payload: payload as string }),
  });
  return {
    status: res.statusCode,
    body: res.body ? (JSON.parse(res.body) as Record<string, unknown>) : null,
  };
}

async function readSettings(who: keyof typeof as): Promise<SettingsRead> {
  const res = await server.app.inject({ method: 'GET', url: '/api/v1/settings', headers: as[who] });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as SettingsRead;
}

const count = () => scalar(server.deps.store.read, 'SELECT count(*) FROM windows', int);
const soon = { starts: T0 + HOUR, ends: T0 + 2 * HOUR };

test('write callers make silences and maintenance windows; the caller is recorded', async () => {
  const none = await call('POST', '/api/v1/silences', 'none', { scope: 'all', ...soon });
  assert.equal(none.status, 401);
  const viewer = await call('POST', '/api/v1/maintenance', 'viewer', { scope: 'all', ...soon });
  assert.equal(viewer.status, 403);
  assert.equal(viewer.body?.title, 'only admins can do this');
  assert.equal((await call('POST', '/api/v1/silences', 'read', { scope: 'all', ...soon })).status, 403);
  assert.equal((await call('POST', '/api/v1/silences', 'deploy', { scope: 'all', ...soon })).status, 403);
  assert.equal(count(), 0, 'refusals store nothing');

  const byToken = await call('POST', '/api/v1/silences', 'write', {
    scope: 'service',
    name: 'api',
    ...soon,
    reason: '  moving the database  ',
  });
  assert.equal(byToken.status, 201);
  assert.match(String(byToken.body?.id), /^[0-9a-f]{16}$/);
  const byAdmin = await call('POST', '/api/v1/maintenance', 'admin', { scope: 'host', name: 'db1', ...soon });
  assert.equal(byAdmin.status, 201);

  const silence = windowOf(server.deps.store.read, String(byToken.body?.id), T0);
  assert.deepEqual(silence, {
    id: byToken.body?.id,
    scope: 'service',
    name: 'api',
    starts: soon.starts,
    ends: soon.ends,
    reason: 'moving the database',
    createdBy: 'write token',
    createdAt: T0,
    active: false,
  });
  const maintenance = windowOf(server.deps.store.read, String(byAdmin.body?.id), T0);
  assert.equal(maintenance?.createdBy, 'admin@example.com');
  assert.equal(maintenance?.reason, null);
  assert.deepEqual(
    windowsOf(server.deps.store.read, 'silence', T0).map((w) => w.id),
    [byToken.body?.id],
    'each kind lists its own',
  );
  assert.deepEqual(
    windowsOf(server.deps.store.read, 'maintenance', T0).map((w) => w.id),
    [byAdmin.body?.id],
  );
  // The settings read lists them for every reader; neither is in force yet.
  const settings = await readSettings('viewer');
  assert.deepEqual(settings.silences, [silence]);
  assert.deepEqual(settings.maintenance, [maintenance]);
  assert.deepEqual(settings.holds, { silences: [], maintenance: [] });
});

test('every rule of the body answers 422 naming its field and stores nothing', async () => {
  const before = count();
  const cases: [unknown, number, string][] = [
    [{ ...soon }, 422, 'scope: required'],
    [{ scope: 'team', ...soon }, 422, 'scope: must be one of all, service, host'],
    [{ scope: 'all', name: 'api', ...soon }, 422, 'name: must be null for scope all'],
    [{ scope: 'service', ...soon }, 422, 'name: required for scope service'],
    [{ scope: 'host', name: null, ...soon }, 422, 'name: required for scope host'],
    [{ scope: 'service', name: 'nothing', ...soon }, 422, 'name: unknown service'],
    [{ scope: 'service', name: 'web1', ...soon }, 422, 'name: unknown service'],
    [{ scope: 'host', name: 'api', ...soon }, 422, 'name: unknown host'],
    [{ scope: 'service', name: 42, ...soon }, 422, 'name: must be the name of a service or host, or null'],
    [{ scope: 'all', ends: soon.ends }, 422, 'starts: required'],
    [{ scope: 'all', starts: '2026-03-01', ends: soon.ends }, 422, 'starts: must be a time in milliseconds'],
    [{ scope: 'all', starts: soon.starts, ends: 1.5 }, 422, 'ends: must be a time in whole milliseconds'],
    [{ scope: 'all', starts: -1, ends: soon.ends }, 422, 'starts: must be a time in milliseconds'],
    [{ scope: 'all', starts: soon.ends, ends: soon.starts }, 422, 'ends: must be after starts'],
    [{ scope: 'all', starts: soon.starts, ends: soon.starts }, 422, 'ends: must be after starts'],
    [{ scope: 'all', starts: T0 - 2 * HOUR, ends: T0 }, 422, 'ends: must be in the future'],
    [{ scope: 'all', starts: T0, ends: T0 + 90 * DAY + 1 }, 422, 'ends: a window lasts at most 90 days'],
    [{ scope: 'all', ...soon, reason: 'x'.repeat(501) }, 422, 'reason: must be at most 500 characters'],
    [{ scope: 'all', ...soon, reason: 7 }, 422, 'reason: must be text or null'],
    [{ scope: 'all', ...soon, color: 'red' }, 422, 'color: unknown field'],
    [[1, 2], 400, 'the body must be a JSON object'],
    ['{"scope": ', 400, 'the body is not valid JSON'],
  ];
  for (const [body, status, detail] of cases) {
    for (const path of ['/api/v1/silences', '/api/v1/maintenance']) {
      const res = await call('POST', path, 'write', body);
      assert.equal(res.status, status, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
      assert.equal(res.body?.detail, detail, JSON.stringify(body));
    }
  }
  assert.equal(count(), before);

  // The limits themselves are allowed: exactly 90 days, a start long past, hosts of both kinds of table.
  for (const body of [
    { scope: 'all', starts: T0, ends: T0 + 90 * DAY },
    { scope: 'all', starts: T0 - 30 * DAY, ends: T0 + MIN, reason: '' },
    { scope: 'host', name: 'web2', ...soon },
    { scope: 'service', name: 'shop', ...soon, reason: null },
  ]) {
    const res = await call('POST', '/api/v1/maintenance', 'write', body);
    assert.equal(res.status, 201, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
    assert.equal(windowOf(server.deps.store.read, String(res.body?.id), T0)?.reason, null);
    assert.equal((await call('DELETE', `/api/v1/maintenance/${res.body?.id}`, 'write')).status, 204);
  }
});

test('PUT changes scope, name, times and reason and answers the window; unknown ids are 404', async () => {
  const made = await call('POST', '/api/v1/silences', 'admin', { scope: 'all', ...soon });
  const id = String(made.body?.id);
  const changed = {
    scope: 'host',
    name: 'web1',
    starts: T0 - MIN,
    ends: T0 + 3 * HOUR,
    reason: 'kernel update',
  };

  assert.equal((await call('PUT', `/api/v1/silences/${id}`, 'viewer', changed)).status, 403);
  assert.equal((await call('PUT', `/api/v1/silences/${id}`, 'read', changed)).status, 403);
  assert.equal((await call('PUT', `/api/v1/silences/${id}`, 'none', changed)).status, 401);
  const bad = await call('PUT', `/api/v1/silences/${id}`, 'write', { ...changed, ends: changed.starts });
  assert.equal(bad.status, 422);
  assert.equal(bad.body?.detail, 'ends: must be after starts');
  assert.equal(windowOf(server.deps.store.read, id, T0)?.scope, 'all', 'a refused PUT changes nothing');

  const res = await call('PUT', `/api/v1/silences/${id}`, 'write', changed);
  assert.equal(res.status, 200);
  const read = res.body as WindowRead;
  assert.deepEqual(read, {
    id,
    ...changed,
    createdBy: 'admin@example.com',
    createdAt: T0,
    active: true,
  });
  assert.deepEqual(windowOf(server.deps.store.read, id, T0), read);
  const settings = await readSettings('read');
  assert.ok(settings.holds.silences.includes(id), 'in force now');
  assert.deepEqual(
    settings.silences.find((w) => w.id === id),
    read,
  );

  assert.equal(
    (await call('PUT', `/api/v1/maintenance/${id}`, 'write', changed)).status,
    404,
    'a silence is no maintenance',
  );
  const unknown = await call('PUT', '/api/v1/silences/0123456789abcdef', 'write', changed);
  assert.equal(unknown.status, 404);
  assert.equal((await call('DELETE', `/api/v1/maintenance/${id}`, 'write')).status, 404);
  assert.equal((await call('DELETE', '/api/v1/silences/0123456789abcdef', 'write')).status, 404);
});

test('DELETE ends a window in force at once and removes one not started yet', async () => {
  const running = await call('POST', '/api/v1/maintenance', 'write', {
    scope: 'service',
    name: 'shop',
    starts: T0 - HOUR,
    ends: T0 + HOUR,
  });
  const later = await call('POST', '/api/v1/maintenance', 'write', {
    scope: 'service',
    name: 'shop',
    ...soon,
  });
  const runningId = String(running.body?.id);
  const laterId = String(later.body?.id);
  assert.equal((await call('DELETE', `/api/v1/maintenance/${runningId}`, 'viewer')).status, 403);
  assert.equal((await call('DELETE', `/api/v1/maintenance/${runningId}`, 'read')).status, 403);

  await clock.advance(MIN);
  assert.equal((await call('DELETE', `/api/v1/maintenance/${runningId}`, 'write')).status, 204);
  const ended = windowOf(server.deps.store.read, runningId, clock.now());
  assert.equal(ended?.ends, T0 + MIN, 'its time so far stays recorded');
  assert.equal(ended?.active, false);
  assert.ok(!windowsOf(server.deps.store.read, 'maintenance', clock.now()).some((w) => w.id === runningId));

  assert.equal((await call('DELETE', `/api/v1/maintenance/${laterId}`, 'admin')).status, 204);
  assert.equal(windowOf(server.deps.store.read, laterId, clock.now()), null);
  assert.equal((await call('DELETE', `/api/v1/maintenance/${laterId}`, 'write')).status, 404);
  // An ended window goes when deleted: its time counts in uptime again.
  assert.equal((await call('DELETE', `/api/v1/maintenance/${runningId}`, 'write')).status, 204);
  assert.equal(windowOf(server.deps.store.read, runningId, clock.now()), null);
});

test('changes name the screens of the services they touch; starts and ends do too', async () => {
  const published: LiveKey[][] = [];
  // Past the windows of the tests before: their starts and ends are not this test's.
  await clock.advance(DAY);
  const stop = server.deps.bus.subscribe((keys) => published.push([...keys]));
  try {
    const now = clock.now();
    const service = await call('POST', '/api/v1/silences', 'write', {
      scope: 'service',
      name: 'api',
      starts: now + HOUR,
      ends: now + 2 * HOUR,
    });
    assert.deepEqual(published.pop()?.sort(), ['overview', 'service:api']);
    await call('POST', '/api/v1/silences', 'write', {
      scope: 'host',
      name: 'web2',
      starts: now + 3 * HOUR,
      ends: now + 4 * HOUR,
    });
    assert.deepEqual(published.pop()?.sort(), ['overview', 'service:blog', 'service:shop']);
    const all = await call('POST', '/api/v1/maintenance', 'write', {
      scope: 'all',
      starts: now + 5 * HOUR,
      ends: now + 6 * HOUR,
    });
    assert.deepEqual(published.pop(), ['*']);
    await call('PUT', `/api/v1/silences/${service.body?.id}`, 'write', {
      scope: 'service',
      name: 'shop',
      starts: now + HOUR,
      ends: now + 2 * HOUR,
    });
    assert.deepEqual(
      published.pop()?.sort(),
      ['overview', 'service:api', 'service:shop'],
      'before and after',
    );
    assert.equal(published.length, 0);

    // At the start of the silence its service's screens reload, and again at its end.
    await clock.advance(HOUR - 1);
    assert.equal(published.length, 0);
    await clock.advance(1);
    assert.deepEqual(published.pop()?.sort(), ['overview', 'service:shop']);
    await clock.advance(HOUR);
    assert.deepEqual(published.pop()?.sort(), ['overview', 'service:shop']);
    await call('DELETE', `/api/v1/maintenance/${all.body?.id}`, 'write');
    assert.deepEqual(published.pop(), ['*']);
    await clock.advance(HOUR);
    assert.deepEqual(
      published.pop()?.sort(),
      ['overview', 'service:blog', 'service:shop'],
      'the host window starts',
    );
  } finally {
    stop();
  }
});
