import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DAY } from '../../protocol/durations.ts';
import { type Any, checkServer, liveConfig } from '../checks/testkit.ts';
import type { ConfigInForce } from '../config/service.ts';
import { fileService } from '../incidents/testkit.ts';
import type { TestServer } from '../testing.ts';
import { pruneAnalytics } from './housekeeping.ts';
import { rows, store, view } from './storage-testkit.ts';

const count = (server: TestServer, site: string) =>
  Number(
    (
      server.deps.store.read
        .prepare("SELECT count(*) AS n FROM analytics_totals WHERE site = ? AND res = 'd'")
        .get(site) as Any
    ).n,
  );

/** A server whose mon.toml names `sites` under the service `files`, and says which configuration is in force. */
async function unlistedServer(sites: string[], inForce: ConfigInForce) {
  const config = liveConfig({ services: [{ ...fileService('files'), sites }] });
  let state = inForce;
  const kit = await checkServer({ config: { ...config.service, inForce: () => state } });
  const clocks = () => rows(kit.server, 'SELECT domain, since FROM sites_unlisted ORDER BY domain');
  return { ...kit, config, clocks, inForce: (next: ConfigInForce) => (state = next) };
}

test('a start without the file’s configuration starts no clock: quiet sites keep their data 35 days from when the file leaves them out', async (t) => {
  // mon.toml rejected at start, and its last good copy no longer loads: nothing is named.
  const { server, clock, config, clocks, inForce } = await unlistedServer([], 'empty');
  t.after(() => server.dispose());
  const now = clock.now();
  // A quiet site of the file: its last views 40 days ago.
  await store(server, [view({ site: 'quiet.example', ts: now - 40 * DAY, visitor: 'a' })]);
  const before = count(server, 'quiet.example');
  assert.ok(before > 0);
  await pruneAnalytics(server.deps, { now });
  assert.equal(count(server, 'quiet.example'), before, 'kept');
  assert.deepEqual(clocks(), [], 'no clock started');

  // The file loads and names it: nothing to clear. Then a save leaves it out: its clock starts then.
  inForce('file');
  config.reload({ services: [{ ...fileService('files'), sites: ['quiet.example'] }] });
  await pruneAnalytics(server.deps, { now: now + DAY });
  assert.deepEqual(clocks(), []);
  await clock.jump(2 * DAY);
  config.reload({ services: [fileService('files')] });
  await pruneAnalytics(server.deps, { now: now + 3 * DAY });
  assert.deepEqual(clocks(), [{ domain: 'quiet.example', since: now + 2 * DAY }]);
  await pruneAnalytics(server.deps, { now: now + 36 * DAY });
  assert.equal(count(server, 'quiet.example'), before, 'kept 35 days from when it was left out');

  // Named again, its clock goes; left out again, one starts afresh.
  await clock.jump(34 * DAY);
  config.reload({ services: [{ ...fileService('files'), sites: ['quiet.example'] }] });
  await pruneAnalytics(server.deps, { now: now + 37 * DAY });
  assert.deepEqual(clocks(), []);
  config.reload({ services: [fileService('files')] });
  await pruneAnalytics(server.deps, { now: now + 38 * DAY });
  assert.deepEqual(clocks(), [{ domain: 'quiet.example', since: now + 36 * DAY }]);
  assert.equal(count(server, 'quiet.example'), before);
  // A clock runs while the last good configuration is in force, but nothing goes under it.
  inForce('lastGood');
  await pruneAnalytics(server.deps, { now: now + 80 * DAY });
  assert.equal(count(server, 'quiet.example'), before, 'not under the last good configuration');
  inForce('file');
  await pruneAnalytics(server.deps, { now: now + 80 * DAY });
  assert.equal(count(server, 'quiet.example'), 0, 'gone 35 days after it was left out');
  assert.deepEqual(clocks(), [], 'its clock with it');
});

test('a site mon.toml names again during the pass that deletes it keeps its new data', async (t) => {
  const { server, clock, config, clocks } = await unlistedServer(['keep.example', 'back.example'], 'file');
  t.after(() => server.dispose());
  const now = clock.now();
  await store(server, [view({ site: 'back.example', ts: now, visitor: 'a' })]);
  config.reload({ services: [{ ...fileService('files'), sites: ['keep.example'] }] });
  await pruneAnalytics(server.deps, { now });
  assert.deepEqual(clocks(), [{ domain: 'back.example', since: now }]);
  // Raw data of a kept site that the next pass finds old: it deletes it first, over many jobs.
  for (let b = 0; b < 5; b++) {
    await store(
      server,
      Array.from({ length: 1000 }, (_, i) =>
        view({ site: 'keep.example', ts: now - 4 * DAY + b * 1000 + i, visitor: `k${b}-${i}` }),
      ),
    );
  }

  // 36 days on, a pass finds it due; mon.toml names it again while the pass deletes others' rows.
  let passDone = false;
  const pass = pruneAnalytics(server.deps, { now: now + 36 * DAY, chunkRows: 50 }).then(() => {
    passDone = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  config.reload({ services: [{ ...fileService('files'), sites: ['keep.example', 'back.example'] }] });
  await store(server, [view({ site: 'back.example', ts: now + 36 * DAY, visitor: 'b' })]);
  assert.equal(passDone, false, 'the pass is still deleting');
  await pass;
  assert.ok(count(server, 'back.example') > 0, 'named again: kept');
  assert.deepEqual(clocks(), []);
});
