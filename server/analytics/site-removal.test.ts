import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DAY, HOUR } from '../../protocol/durations.ts';
import type { ServicesList } from '../../protocol/reads.ts';
import { type Any, checkServer, liveConfig } from '../checks/testkit.ts';
import { fileService } from '../incidents/testkit.ts';
import { memoryLog, type TestServer } from '../testing.ts';
import { writeDayBlocks } from './block-writes.ts';
import { pruneAnalytics } from './housekeeping.ts';
import { purgeRemovedSites, removeSite } from './site-removal.ts';
import { engage, jsError, store, view } from './storage-testkit.ts';
import { agents } from './testkit.ts';

/** Every analytics table, and the count of `site`'s rows in each. */
const tables: Record<string, string> = {
  analytics_sessions: 'SELECT count(*) AS n FROM analytics_sessions WHERE site = ?',
  analytics_views: 'SELECT count(*) AS n FROM analytics_views WHERE site = ?',
  analytics_totals: 'SELECT count(*) AS n FROM analytics_totals WHERE site = ?',
  analytics_dims: 'SELECT count(*) AS n FROM analytics_dims WHERE site = ?',
  analytics_vitals: 'SELECT count(*) AS n FROM analytics_vitals WHERE site = ?',
  analytics_dim_values: 'SELECT count(*) AS n FROM analytics_dim_values WHERE site = ?',
  analytics_dim_blocks: 'SELECT count(*) AS n FROM analytics_dim_blocks WHERE site = ?',
  analytics_blocks_written: 'SELECT count(*) AS n FROM analytics_blocks_written WHERE site = ?',
  js_error_groups: 'SELECT count(*) AS n FROM js_error_groups WHERE site = ?',
  js_error_counts:
    'SELECT count(*) AS n FROM js_error_counts WHERE group_id IN (SELECT id FROM js_error_groups WHERE site = ?)',
};

function rowsOf(server: TestServer, site: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [table, sql] of Object.entries(tables)) {
    out[table] = Number((server.deps.store.read.prepare(sql).get(site) as { n: number }).n);
  }
  return out;
}

const none = Object.fromEntries(Object.keys(tables).map((t) => [t, 0]));

/** Two days of a site's traffic ending at `end`: views, engagement with vitals, errors; then its blocks. */
async function traffic(server: TestServer, site: string, end: number): Promise<void> {
  for (const at of [end - DAY - 2 * HOUR, end - HOUR]) {
    await store(server, [
      view({ site, ts: at, visitor: `a${at}`, page: '/', referrer: 'news.example', utm: { source: 'mail' } }),
      engage({
        site,
        ts: at + 20_000,
        visitor: `a${at}`,
        page: '/',
        engagedMs: 15_000,
        vitals: { lcp: 900 },
      }),
      view({ site, ts: at + 60_000, visitor: `a${at}`, page: '/pricing' }),
      view({ site, ts: at + 5, visitor: `b${at}`, page: '/' }),
      jsError({ site, ts: at + 9, visitor: `b${at}`, message: 'x is undefined' }),
    ]);
  }
  await writeDayBlocks(server.deps.store.writer, { now: end + 3 * DAY });
}

/** mon.toml has the service `files` with the site files.example; the clock is at 2026-01-01. */
async function removalServer(dataDir?: string) {
  const config = liveConfig({ services: [{ ...fileService('files'), sites: ['files.example'] }] });
  const kit = await checkServer({ config: config.service, ...(dataDir ? { dataDir } : {}) });
  return { ...kit, config };
}

const serviceNames = async (inject: Awaited<ReturnType<typeof checkServer>>['inject']) =>
  ((await inject('GET', '/api/v1/services')).body as ServicesList).services.map((s) => s.name);

test('DELETE /sites/{domain}: 404 for no site, 409 for a site of mon.toml; both change nothing', async (t) => {
  const { server, inject } = await removalServer();
  t.after(() => server.dispose());
  const unknown = await inject('DELETE', '/api/v1/sites/nope.example');
  assert.deepEqual([unknown.status, (unknown.body as Any).detail], [404, 'no site nope.example']);
  const file = await inject('DELETE', '/api/v1/sites/Files.Example');
  assert.equal(file.status, 409);
  assert.equal(
    (file.body as Any).detail,
    'the site files.example belongs to the service "files" in mon.toml; take it out of the file\'s sites to remove it',
  );
  assert.deepEqual(server.analytics.sites.find('files.example'), {
    domain: 'files.example',
    service: 'files',
    fromFile: true,
  });
  const read = await inject('GET', '/api/v1/analytics?site=files.example');
  assert.equal((read.body as Any).fromFile, true, 'the panel offers no removal for it');
});

test('a removed site: its events refused, every analytics row of it gone in bounded jobs, other sites kept, its service with checks stays', async (t) => {
  const { server, inject, clock } = await removalServer();
  t.after(() => server.dispose());
  const typo = await inject('POST', '/api/v1/sites', { domain: 'shop.exmaple.com', service: 'shop' });
  assert.equal(typo.status, 201, typo.text);
  const check = { name: 'shop-home', service: 'shop', kind: 'http', target: 'https://shop.example/' };
  assert.equal((await inject('POST', '/api/v1/checks', check)).status, 201);
  assert.equal((await inject('POST', '/api/v1/sites', { domain: 'keep.example' })).status, 201);
  const read = await inject('GET', '/api/v1/analytics?site=shop.exmaple.com');
  assert.equal((read.body as Any).fromFile, false);

  for (const site of ['shop.exmaple.com', 'keep.example']) await traffic(server, site, clock.now());
  const before = rowsOf(server, 'shop.exmaple.com');
  for (const [table, n] of Object.entries(before)) assert.ok(n > 0, `${table} has rows of the site`);
  const kept = rowsOf(server, 'keep.example');

  // Removed, not yet purged: gone for reads and events, its domain not to be added again meanwhile.
  await removeSite(server.deps, 'shop.exmaple.com', {
    forget: () => {},
    undo: () => {},
    removed: () => server.analytics.sites.refresh(),
  });
  assert.equal(server.analytics.sites.find('shop.exmaple.com'), null);
  assert.equal((await inject('GET', '/api/v1/analytics?site=shop.exmaple.com')).status, 404);
  const event = await server.app.inject({
    method: 'POST',
    url: '/e',
    remoteAddress: '81.2.69.160',
    headers: { 'content-type': 'text/plain', 'user-agent': agents.chromeWindows },
    payload: JSON.stringify({ k: 'v', d: 'shop.exmaple.com', u: 'https://shop.exmaple.com/' }),
  });
  assert.equal(event.statusCode, 404);
  const again = await inject('POST', '/api/v1/sites', { domain: 'shop.exmaple.com', service: 'shop' });
  assert.equal(again.status, 409);
  assert.match(
    (again.body as Any).detail,
    /just removed and its data is being deleted; add it again in a moment/,
  );
  assert.deepEqual(await serviceNames(inject), ['files', 'keep-example', 'shop'], 'shop keeps its check');

  const data = Object.values(before).reduce((a, b) => a + b, 0);
  const { deleted, jobs } = await purgeRemovedSites(server.deps, 10);
  assert.equal(deleted, data + 1, 'its rows and its sites_removed row');
  // A part deletes an error group with all its counts at once: a job may go a few rows over.
  assert.ok(jobs > data / 20, `${jobs} jobs of about 10 rows for ${data}`);
  assert.deepEqual(rowsOf(server, 'shop.exmaple.com'), none);
  assert.deepEqual(rowsOf(server, 'keep.example'), kept, 'another site keeps everything');
  assert.equal(
    (await inject('POST', '/api/v1/sites', { domain: 'shop.exmaple.com', service: 'shop' })).status,
    201,
  );

  // Through the route: 204, the data follows at once; a panel service held by nothing else goes.
  await traffic(server, 'keep.example', clock.now());
  assert.equal((await inject('DELETE', '/api/v1/sites/KEEP.example')).status, 204);
  await server.analytics.purged();
  assert.deepEqual(rowsOf(server, 'keep.example'), none);
  assert.deepEqual(await serviceNames(inject), ['files', 'shop']);
  assert.deepEqual(
    server.analytics.sites.list().map((s) => s.domain),
    ['files.example', 'shop.exmaple.com'],
  );
});

test('a site mon.toml stops naming keeps its data 35 days, then all of it goes; a removal a crash cut short finishes at start', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mon-site-removal-'));
  const first = await removalServer(dir);
  const { server, clock, config } = first;
  await traffic(server, 'files.example', clock.now());
  const { analytics_dim_values: _, ...before } = rowsOf(server, 'files.example');
  config.reload({ services: [fileService('files')] });
  assert.equal(server.analytics.sites.find('files.example'), null);

  // Named again within 35 days, it has everything but what retention took.
  await pruneAnalytics(server.deps, { now: clock.now() + 10 * DAY });
  // The counts of values go after two days, as any site's.
  const { analytics_dim_values: __, ...after } = rowsOf(server, 'files.example');
  assert.deepEqual(after, before);
  const later = clock.now() + 37 * DAY;
  await pruneAnalytics(server.deps, { now: later });
  assert.deepEqual(rowsOf(server, 'files.example'), none, 'its days and blocks too');

  // Removed, then stopped before its data went: the next start deletes it.
  assert.equal((await first.inject('POST', '/api/v1/sites', { domain: 'gone.example' })).status, 201);
  await traffic(server, 'gone.example', clock.now());
  await removeSite(server.deps, 'gone.example', { forget: () => {}, undo: () => {}, removed: () => {} });
  assert.ok(rowsOf(server, 'gone.example').analytics_totals! > 0, 'stopped before its data went');
  await server.close();

  const again = await removalServer(dir);
  t.after(() => again.server.dispose());
  await again.server.analytics.purged();
  assert.deepEqual(rowsOf(again.server, 'gone.example'), none);
  assert.equal(
    Number((again.server.deps.store.read.prepare('SELECT count(*) AS n FROM sites_removed').get() as Any).n),
    0,
  );
});

test('a site purged and added again during a housekeeping pass keeps its new data: each delete job asks whether it is still removed', async (t) => {
  const { server, inject, clock } = await removalServer();
  t.after(() => server.dispose());
  const now = clock.now();
  const views = (site: string) =>
    Number(
      (
        server.deps.store.read
          .prepare('SELECT count(*) AS n FROM analytics_views WHERE site = ?')
          .get(site) as Any
      ).n,
    );
  // Old raw data of a kept site: the pass deletes it first, over many jobs.
  assert.equal((await inject('POST', '/api/v1/sites', { domain: 'keep.example' })).status, 201);
  for (let b = 0; b < 5; b++) {
    await store(
      server,
      Array.from({ length: 1000 }, (_, i) =>
        view({ site: 'keep.example', ts: now - 40 * DAY + b * 1000 + i, visitor: `k${b}-${i}` }),
      ),
    );
  }
  assert.equal((await inject('POST', '/api/v1/sites', { domain: 'x.example' })).status, 201);
  await store(
    server,
    Array.from({ length: 500 }, (_, i) =>
      view({ site: 'x.example', ts: now - 1000 + i, visitor: `old${i}` }),
    ),
  );
  // The domain with the trailing dot of a fully qualified name, as `POST /e` takes it.
  assert.equal((await inject('DELETE', '/api/v1/sites/X.example.')).status, 204);
  // The pass lists x.example as removed in its first job…
  let passDone = false;
  const pass = pruneAnalytics(server.deps, { now, chunkRows: 50 }).then((done) => {
    passDone = true;
    return done;
  });
  // …the purge ends meanwhile, the domain is added again and takes new views.
  await server.analytics.purged();
  assert.equal(views('x.example'), 0);
  assert.equal((await inject('POST', '/api/v1/sites', { domain: 'x.example' })).status, 201);
  await store(server, [
    view({ site: 'x.example', ts: now, visitor: 'new1' }),
    view({ site: 'x.example', ts: now, visitor: 'new2' }),
  ]);
  assert.equal(passDone, false, 'the pass is still deleting');
  assert.ok((await pass).jobs > 100);
  assert.equal(views('x.example'), 2, 'the new views stay');
  assert.equal(views('keep.example'), 0, 'the pass did its work');
});

test('a stop during a purge says, as information, that the next start finishes it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mon-site-removal-'));
  const memory = memoryLog();
  const config = liveConfig({ services: [] });
  const { server, inject, clock } = await checkServer({
    config: config.service,
    dataDir: dir,
    log: memory.log,
  });
  assert.equal((await inject('POST', '/api/v1/sites', { domain: 'x.example' })).status, 201);
  for (let b = 0; b < 10; b++) {
    await store(
      server,
      Array.from({ length: 2000 }, (_, i) =>
        view({ site: 'x.example', ts: clock.now() - DAY + b * 2000 + i, visitor: `v${b}-${i}` }),
      ),
    );
  }
  assert.equal((await inject('DELETE', '/api/v1/sites/x.example')).status, 204);
  await server.close();
  await server.analytics.purged();
  const said = memory.lines().filter((l) => /purge/.test(String(l.message)));
  assert.deepEqual(
    said.map((l) => [l.level, l.message]),
    [['info', 'removed sites not purged yet; the next start finishes it']],
  );
  const again = await checkServer({ config: config.service, dataDir: dir });
  t.after(() => again.server.dispose());
  await again.server.analytics.purged();
  assert.deepEqual(rowsOf(again.server, 'x.example'), none);
});
