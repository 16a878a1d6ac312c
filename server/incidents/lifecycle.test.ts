import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileService, incidentServer } from './testkit.ts';

/** docs/incidents.md "Lifecycle": opening, joining, impact through depends_on, recovery and resolution. */

test('a check opens an incident after its second failed run, with its alert and an opened row', async (t) => {
  const kit = await incidentServer();
  t.after(() => kit.server.dispose());
  const home = await kit.check('home', 'shop');
  const started = kit.clock.now();
  await kit.run(home, 'down');
  assert.deepEqual(await kit.list(), [], 'one failed run opens nothing');
  await kit.clock.advance(10_000);
  await kit.run(home, 'down');
  const [incident, ...others] = await kit.list();
  assert.deepEqual(others, []);
  assert.ok(incident);
  assert.match(incident.id, /^[0-9a-f]{16}$/);
  assert.deepEqual(
    { ...incident, id: '' },
    {
      id: '',
      title: 'shop: home down',
      state: 'open',
      startedAt: started + 10_000,
      acknowledgedAt: null,
      acknowledgedBy: null,
      resolvedAt: null,
      services: ['shop'],
      // The host its check runs from.
      hosts: ['agent1'],
      alertCount: 1,
      failingCount: 1,
      inMaintenance: false,
      topCause: null,
    },
  );
  const read = await kit.read(incident.id);
  assert.deepEqual(read.alerts, [
    {
      key: `check:${home}`,
      check: home,
      service: 'shop',
      host: 'agent1',
      name: 'home',
      detail: 'connection refused',
      status: 'down',
      impact: false,
      openedAt: started + 10_000,
      recoveredAt: null,
    },
  ]);
  assert.deepEqual(
    read.timeline.map((r) => [r.kind, r.title, r.check]),
    [['opened', 'home down', home]],
  );
});

test("a service's second failing check joins its open incident; an unrelated service opens its own", async (t) => {
  const kit = await incidentServer();
  t.after(() => kit.server.dispose());
  const home = await kit.check('home', 'shop');
  const cart = await kit.check('cart', 'shop');
  const blog = await kit.check('blog-home', 'blog');
  await kit.fail(home);
  await kit.fail(cart);
  await kit.fail(blog);
  const list = await kit.list();
  assert.deepEqual(
    list.map((i) => [i.title, i.services, i.alertCount]),
    [
      ['blog: blog-home down', ['blog'], 1],
      ['shop: home down', ['shop'], 2],
    ],
  );
  const shop = await kit.read(list[1]!.id);
  assert.deepEqual(
    shop.alerts.map((a) => [a.name, a.impact]),
    [
      ['home', false],
      ['cart', false],
    ],
  );
  assert.deepEqual(
    shop.timeline.map((r) => [r.kind, r.title]),
    [
      ['opened', 'home down'],
      ['alert', 'cart down'],
    ],
  );
});

test('alerts of services that depend on a failing service join its incident as impact', async (t) => {
  const kit = await incidentServer([
    fileService('db', [], ['db1']),
    fileService('api', ['db']),
    fileService('shop', ['api']),
    fileService('blog'),
  ]);
  t.after(() => kit.server.dispose());
  const db = await kit.check('db-port', 'db');
  const api = await kit.check('api-health', 'api');
  const shop = await kit.check('home', 'shop');
  const blog = await kit.check('blog-home', 'blog');
  await kit.fail(db);
  await kit.fail(shop);
  await kit.fail(api);
  await kit.fail(blog);
  const list = await kit.list();
  assert.deepEqual(
    list.map((i) => [i.title, i.services, i.hosts, i.alertCount]),
    [
      ['blog: blog-home down', ['blog'], ['agent1'], 1],
      ['db: db-port down', ['db', 'shop', 'api'], ['agent1', 'db1'], 3],
    ],
  );
  const root = await kit.read(list[1]!.id);
  assert.deepEqual(
    root.alerts.map((a) => [a.name, a.service, a.impact]),
    [
      ['db-port', 'db', false],
      ['home', 'shop', true],
      ['api-health', 'api', true],
    ],
  );
  assert.equal(root.timeline[1]?.title, 'home down: shop depends on db');
  // Monitoring is not suppressed: the dependents' checks are down as they are.
  assert.deepEqual(
    root.alerts.map((a) => a.status),
    ['down', 'down', 'down'],
  );
});

test('a dependency that fails after its dependent opens its own incident, which later dependents join', async (t) => {
  const kit = await incidentServer([
    fileService('db'),
    fileService('api', ['db']),
    fileService('shop', ['db']),
  ]);
  t.after(() => kit.server.dispose());
  const shop = await kit.check('home', 'shop');
  const db = await kit.check('db-port', 'db');
  const api = await kit.check('api-health', 'api');
  await kit.fail(shop);
  await kit.fail(db);
  await kit.fail(api);
  const list = await kit.list();
  assert.deepEqual(
    list.map((i) => [i.title, i.services]),
    [
      ['db: db-port down', ['db', 'api']],
      ['shop: home down', ['shop']],
    ],
  );
  // Later failures of the service that failed first stay in its own incident.
  const cart = await kit.check('cart', 'shop');
  await kit.fail(cart);
  assert.deepEqual(
    (await kit.list()).map((i) => i.alertCount),
    [2, 2],
  );
});

test('an incident resolves when its last alert recovers; a new failure then opens a new one', async (t) => {
  const kit = await incidentServer([fileService('db'), fileService('shop', ['db'])]);
  t.after(() => kit.server.dispose());
  const db = await kit.check('db-port', 'db');
  const shop = await kit.check('home', 'shop');
  await kit.fail(db);
  await kit.fail(shop);
  const [incident] = await kit.list();
  await kit.recover(db);
  const half = await kit.read(incident!.id);
  assert.equal(half.state, 'open', 'the impact alert still fails');
  assert.equal(half.failingCount, 1);
  const resolvedAt = kit.clock.now() + 60_000;
  await kit.clock.advance(60_000);
  await kit.recover(shop);
  const done = await kit.read(incident!.id);
  assert.equal(done.state, 'resolved');
  assert.equal(done.resolvedAt, resolvedAt + 180_000);
  assert.deepEqual(
    done.timeline.map((r) => [r.kind, r.title]),
    [
      ['opened', 'db-port down'],
      ['alert', 'home down: shop depends on db'],
      ['recovered', 'db-port recovered'],
      ['recovered', 'home recovered'],
      ['resolved', 'resolved: every alert recovered'],
    ],
  );
  assert.deepEqual(
    done.alerts.map((a) => [a.name, a.status, a.recoveredAt !== null]),
    [
      ['db-port', 'up', true],
      ['home', 'up', true],
    ],
  );

  await kit.fail(shop);
  const after = await kit.list();
  assert.equal(after.length, 2);
  assert.deepEqual(
    after.map((i) => [i.title, i.state]),
    [
      ['shop: home down', 'open'],
      ['db: db-port down', 'resolved'],
    ],
  );
});

test("a check that goes unknown then down again after its agent's silence stays one alert", async (t) => {
  const kit = await incidentServer();
  t.after(() => kit.server.dispose());
  const home = await kit.check('home', 'shop');
  await kit.fail(home);
  kit.engine.markUnknown(home, kit.clock.now(), 'agent agent1 silent');
  await kit.engine.flush();
  assert.equal(kit.engine.get(home)!.rec.state.status, 'unknown');
  const [incident] = await kit.list();
  assert.equal(incident?.failingCount, 1, 'unknown is not a recovery');
  await kit.clock.advance(60_000);
  await kit.run(home, 'down');
  assert.equal(kit.engine.get(home)!.rec.state.status, 'down');
  const read = await kit.read(incident!.id);
  assert.equal(read.alertCount, 1);
  assert.deepEqual(
    read.timeline.map((r) => r.kind),
    ['opened'],
  );
  assert.equal((await kit.list()).length, 1);

  // Recovering through unknown resolves it.
  kit.engine.markUnknown(home, kit.clock.now(), 'agent agent1 silent');
  await kit.engine.flush();
  await kit.recover(home);
  assert.equal((await kit.read(incident!.id)).state, 'resolved');
});

test('an alert that fails again while its incident is open is the same alert, failing again', async (t) => {
  const kit = await incidentServer();
  t.after(() => kit.server.dispose());
  const home = await kit.check('home', 'shop');
  const cart = await kit.check('cart', 'shop');
  await kit.fail(home);
  await kit.fail(cart);
  await kit.recover(home);
  await kit.fail(home);
  const [incident, ...others] = await kit.list();
  assert.deepEqual(others, []);
  const read = await kit.read(incident!.id);
  assert.equal(read.alertCount, 2);
  assert.equal(read.failingCount, 2);
  assert.deepEqual(
    read.timeline.map((r) => r.title),
    ['home down', 'cart down', 'home recovered', 'home down again'],
  );
});

test('degraded after down recovers the alert; degraded from up opens nothing', async (t) => {
  const kit = await incidentServer();
  t.after(() => kit.server.dispose());
  const home = await kit.check('home', 'shop');
  await kit.fail(home);
  await kit.run(home, 'degraded', 'slow: 2400 ms');
  await kit.clock.advance(180_000);
  await kit.run(home, 'degraded', 'slow: 2300 ms');
  assert.equal(kit.engine.get(home)!.rec.state.status, 'degraded');
  const [incident] = await kit.list();
  assert.equal(incident?.state, 'resolved');

  const cart = await kit.check('cart', 'shop');
  await kit.run(cart, 'up');
  await kit.run(cart, 'degraded', 'slow: 2400 ms');
  assert.equal(kit.engine.get(cart)!.rec.state.status, 'degraded');
  assert.equal((await kit.list()).length, 1);
});

test("a deleted check's alert counts as recovered, and so does a check taken out of mon.toml", async (t) => {
  const kit = await incidentServer();
  t.after(() => kit.server.dispose());
  const home = await kit.check('home', 'shop');
  await kit.fail(home);
  assert.equal((await kit.inject('DELETE', `/api/v1/checks/${home}`)).status, 204);
  const [incident] = await kit.list();
  assert.equal(incident?.state, 'resolved');
  const read = await kit.read(incident!.id);
  assert.deepEqual(
    read.timeline.map((r) => r.title),
    ['home down', 'home removed', 'resolved: every alert recovered'],
  );
  assert.equal(read.alerts[0]?.status, null, 'the check is gone');

  const body = {
    name: 'api',
    service: 'api',
    kind: 'tcp' as const,
    target: 'api.internal:443',
    from: 'agent1',
    everyMs: 10_000,
  };
  kit.config.reload({ checks: [{ index: 0, body, pingToken: null, pingTokenHash: null }] });
  await kit.engine.reconcile();
  const fromFile = kit.engine.all().find((e) => e.rec.name === 'api')!.rec.id;
  await kit.fail(fromFile);
  assert.equal((await kit.list())[0]?.state, 'open');
  kit.config.reload({ checks: [] });
  await kit.engine.reconcile();
  assert.deepEqual(
    (await kit.list()).map((i) => i.state),
    ['resolved', 'resolved'],
  );
});
