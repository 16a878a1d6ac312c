import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Overview } from '../../protocol/overview.ts';
import type { CheckDetail, ServiceRead, ServicesList } from '../../protocol/reads.ts';
import { fileService, incidentServer } from '../incidents/testkit.ts';

/**
 * What a maintenance window does, through a whole server on a fake clock: an incident opened inside it
 * is marked, its services say until when, and its time is left out of uptime. Checks run from an agent:
 * the test records their runs as the agent's frames would.
 */

const MIN = 60_000;
const HOUR = 60 * MIN;

test('an incident opened inside a maintenance window of its service or host is marked; others are not', async (t) => {
  const kit = await incidentServer([fileService('shop', [], ['web1']), fileService('blog', [], ['web2'])]);
  t.after(() => kit.server.dispose());
  const { clock, inject } = kit;
  const home = await kit.check('home', 'shop');
  const posts = await kit.check('posts', 'blog');
  const now = clock.now();

  const made = await inject('POST', '/api/v1/maintenance', {
    scope: 'service',
    name: 'shop',
    starts: now + MIN,
    ends: now + HOUR,
    reason: 'database upgrade',
  });
  assert.equal(made.status, 201, made.text);
  // A silence does not mark incidents: it only mutes notifications.
  await inject('POST', '/api/v1/silences', { scope: 'all', starts: now, ends: now + HOUR });

  await kit.fail(posts);
  await clock.advance(MIN);
  await kit.fail(home);
  const byService = Object.fromEntries((await kit.list()).map((i) => [i.title.split(':')[0], i]));
  assert.equal(byService.shop?.inMaintenance, true, 'opened inside shop’s window');
  assert.equal(byService.blog?.inMaintenance, false, 'blog has no window');
  assert.equal((await kit.read(byService.shop!.id)).inMaintenance, true);

  // After the window, a new incident of shop is not marked; a window of web2 marks blog's.
  await kit.recover(home);
  await kit.recover(posts);
  await clock.advance(HOUR);
  const host = await inject('POST', '/api/v1/maintenance', {
    scope: 'host',
    name: 'web2',
    starts: clock.now(),
    ends: clock.now() + HOUR,
  });
  assert.equal(host.status, 201, host.text);
  await kit.fail(home);
  await kit.fail(posts);
  const open = (await kit.list()).filter((i) => i.state === 'open');
  assert.deepEqual(open.map((i) => [i.title.split(':')[0], i.inMaintenance]).sort(), [
    ['blog', true],
    ['shop', false],
  ]);
});

test('uptime leaves out runs inside maintenance: a check down only then keeps 100%', async (t) => {
  const kit = await incidentServer([fileService('shop', [], ['web1']), fileService('blog', [], ['web2'])]);
  t.after(() => kit.server.dispose());
  const { clock, inject } = kit;
  const home = await kit.check('home', 'shop');
  const posts = await kit.check('posts', 'blog');
  const start = clock.now();
  // Edges inside minutes: the runs there are told apart one by one.
  const from = start + 20 * MIN + 5_000;
  const to = start + 50 * MIN + 25_000;
  const made = await inject('POST', '/api/v1/maintenance', {
    scope: 'host',
    name: 'web1',
    starts: from,
    ends: to,
    reason: 'rack move',
  });
  assert.equal(made.status, 201, made.text);

  // Every 10 s for 70 minutes: both checks fail during the window, and only then.
  const runs = { all: 0, down: 0 };
  for (let ts = start; ts < start + 70 * MIN; ts += 10_000) {
    await clock.advance(ts - clock.now());
    const status = ts >= from && ts < to ? 'down' : 'up';
    runs.all++;
    if (status === 'down') runs.down++;
    await kit.run(home, status);
    await kit.run(posts, status);
    if (ts === start + 30 * MIN) {
      const shop = (await inject('GET', '/api/v1/services/shop')).body as ServiceRead;
      assert.deepEqual(shop.maintenance, { until: to, reason: 'rack move' }, 'in maintenance, until its end');
      const overview = (await inject('GET', '/api/v1/overview')).body as Overview;
      const shown = Object.fromEntries(overview.services.map((s) => [s.name, s.maintenance]));
      assert.deepEqual(shown, { shop: { until: to, reason: 'rack move' }, blog: null });
    }
  }
  await clock.advance(10_000);

  const detail = (await inject('GET', `/api/v1/checks/${home}/detail`)).body as CheckDetail;
  assert.deepEqual(detail.uptime, { day: 100, month: 100, year: 100 });
  assert.equal(detail.uptimeSpan.day.maintenanceMs, to - from, 'says how much maintenance was left out');
  assert.equal(detail.uptimeSpan.year.maintenanceMs, to - from);
  const other = (await inject('GET', `/api/v1/checks/${posts}/detail`)).body as CheckDetail;
  const outside = 100 * (1 - runs.down / runs.all);
  assert.ok(Math.abs(other.uptime!.day! - outside) < 0.01, `blog had no window: ${other.uptime?.day}`);
  assert.equal(other.uptimeSpan.day.maintenanceMs, 0);

  const shop = (await inject('GET', '/api/v1/services/shop')).body as ServiceRead;
  assert.equal(shop.maintenance, null, 'over');
  assert.deepEqual(shop.uptime, { day: 100, month: 100, year: 100 });
  assert.equal(shop.uptimeSpan.month.maintenanceMs, to - from);
  const list = (await inject('GET', '/api/v1/services')).body as ServicesList;
  assert.equal(list.services.find((s) => s.name === 'shop')?.uptime.day, 100);
  assert.deepEqual(
    list.services.map((s) => [s.name, s.hosts]),
    [
      ['blog', ['web2']],
      ['shop', ['web1']],
    ],
    'the hosts a window may name',
  );

  for (const range of ['1h', '24h', '7d']) {
    const overview = (await inject('GET', `/api/v1/overview?range=${range}`)).body as Overview;
    const shopRow = overview.services.find((s) => s.name === 'shop')!;
    assert.equal(shopRow.uptime, 100, `overview ${range}`);
    assert.equal(shopRow.checks[0]!.uptime, 100);
    assert.ok(overview.services.find((s) => s.name === 'blog')!.uptime! < 100);
  }

  // Deleting the ended window puts its runs back.
  const id = (made.body as { id: string }).id;
  assert.equal((await inject('DELETE', `/api/v1/maintenance/${id}`)).status, 204);
  const again = (await inject('GET', `/api/v1/checks/${home}/detail`)).body as CheckDetail;
  assert.ok(Math.abs(again.uptime!.day! - outside) < 0.01, `${again.uptime?.day}`);
  assert.equal(again.uptimeSpan.day.maintenanceMs, 0);
});
