import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { type TestContext, test } from 'node:test';
import type { AnalyticsList } from '../../protocol/analytics.ts';
import { DAY, HOUR, MINUTE } from '../../protocol/durations.ts';
import { FIRST_PASS_DELAY_MS } from '../housekeeping.ts';
import { migrate, migrationFiles } from '../store/db.ts';
import { type TestServer, tempDir, within } from '../testing.ts';
import {
  BLOCK_VALUES,
  daysOverAt,
  STEP_ROWS,
  type TwoDaysUnderWay,
  writeDayBlocks,
  writeSiteBlocks,
} from './block-writes.ts';
import { nextBlock } from './blocks.ts';
import { blocksWritten } from './blocks-written.ts';
import { pruneAnalytics } from './housekeeping.ts';
import { spanPieces } from './pieces.ts';
import { readSpan } from './ranges.ts';
import { readServer, writeDims, writeErrorGroup, writeVitals } from './read-testkit.ts';
import { RAW_RETENTION_MS } from './retention.ts';
import { engage, jsError, rows, store, view } from './storage-testkit.ts';

const SHOP = 'shop.example';
/** Day 20,522 since 1970: even, so 10 and 11 March 2026 make a block of two days. */
const MAR10 = Date.UTC(2026, 2, 10);
const MAR11 = MAR10 + DAY;
const MAR12 = MAR11 + DAY;

async function server(t: TestContext, now: number, dataDir?: string) {
  const kit = await readServer(now, dataDir === undefined ? {} : { dataDir });
  t.after(() => kit.server.dispose());
  return kit;
}

test('the housekeeping pass writes a block once its days are over, an hour after midnight UTC', async (t) => {
  const { server: s, clock, get } = await server(t, MAR12 + 30 * MINUTE);
  await store(s, [
    view({ ts: MAR10 + 10 * HOUR, visitor: 'a', page: '/a' }),
    engage({
      ts: MAR10 + 10 * HOUR + 1_000,
      visitor: 'a',
      page: '/a',
      engagedMs: 5_000,
      vitals: { lcp: 1_500 },
    }),
    view({ ts: MAR11 + 10 * HOUR, visitor: 'b', page: '/b' }),
    view({ ts: MAR11 + 11 * HOUR, visitor: 'b', page: '/a' }),
    jsError({ ts: MAR11 + 12 * HOUR, visitor: 'b', message: 'boom' }),
  ]);
  const untilOf2d = () =>
    rows(s, "SELECT until FROM analytics_blocks_written WHERE site = ? AND res = '2d'", SHOP)[0]?.until;
  const week = async () => ({ ...(await get(`/api/v1/analytics?site=${SHOP}&range=7d`)).body, to: 0 });
  const fromDays = await week();

  // 00:31, the first pass: 10 March is over, 11 March not yet.
  await clock.advance(FIRST_PASS_DELAY_MS);
  await within(2_000, 'the first pass', () => untilOf2d() !== undefined);
  assert.equal(untilOf2d(), MAR10);
  assert.deepEqual(rows(s, "SELECT 1 FROM analytics_dims WHERE res = '2d'"), []);

  // 01:31, the next pass: the block of 10 and 11 March, the sums of their days.
  await clock.advance(HOUR);
  await within(2_000, 'the block of 10 and 11 March', () => untilOf2d() === MAR12);
  assert.deepEqual(
    rows(
      s,
      "SELECT value, visitors, views FROM analytics_dims WHERE res = '2d' AND list = 'pages' ORDER BY value",
    ),
    [
      { value: '/a', visitors: 2, views: 2 },
      { value: '/b', visitors: 1, views: 1 },
    ],
  );
  // Each table's rows of the block are its two days' rows summed.
  const blockAndDays = (table: string, key: string, counts: string[], where = 'TRUE') => ({
    block: rows(
      s,
      `SELECT ${key}, ${counts.join(', ')} FROM ${table} WHERE res = '2d' AND at = ? AND ${where} ORDER BY ${key}`,
      MAR10,
    ),
    days: rows(
      s,
      `SELECT ${key}, ${counts.map((c) => `sum(${c}) AS ${c}`).join(', ')} FROM ${table}
       WHERE res = 'd' AND at IN (?, ?) AND ${where} GROUP BY ${key} ORDER BY ${key}`,
      MAR10,
      MAR11,
    ),
  });
  const lists = blockAndDays('analytics_dims', 'list, value', ['visitors', 'views']);
  assert.deepEqual(lists.block, lists.days);
  const vitals = blockAndDays('analytics_vitals', 'metric, bucket', ['n'], "page = ''");
  assert.equal(vitals.block.length, 1);
  assert.deepEqual(vitals.block, vitals.days);
  const errors = blockAndDays('js_error_counts', 'group_id', ['n']);
  assert.equal(errors.block.length, 1);
  assert.deepEqual(errors.block, errors.days);
  // The week's read takes the block, and answers as it did from the days.
  const now = clock.now();
  const pieces = spanPieces(s.deps.store.read, SHOP, readSpan(now - 7 * DAY, now, now));
  assert.ok(
    pieces.some((p) => p.res === '2d' && p.at === MAR10),
    pieces.map((p) => p.res).join(' '),
  );
  assert.deepEqual(await week(), fromDays);
});

test('a database from before blocks gets them all at its first pass, and reads answer as before', async (t) => {
  const now = Date.UTC(2026, 2, 10, 14, 20);
  const { dir } = tempDir();
  // mon before migration 020: migrations 001 to 019, and 300 days of daily rollups.
  const before020 = mkdtempSync(join(tmpdir(), 'mon-migrations-'));
  t.after(() => rmSync(before020, { recursive: true, force: true }));
  const migrations = join(import.meta.dirname, '../store/migrations');
  for (const file of migrationFiles(migrations).filter((f) => Number(f.slice(0, 3)) <= 19))
    copyFileSync(join(migrations, file), join(before020, file));
  const db = new DatabaseSync(join(dir, 'mon.db'));
  migrate(db, before020);
  const dim = db.prepare(
    "INSERT INTO analytics_dims (site, res, at, list, value, visitors, views) VALUES (?, 'd', ?, ?, ?, ?, ?)",
  );
  const today = MAR10;
  db.exec('BEGIN');
  for (let d = 0; d < 300; d++) {
    for (let p = 0; p < 5; p++)
      dim.run(SHOP, today - d * DAY, 'pages', `/p${(d + p) % 40}`, 1 + p, 1 + d + p);
    dim.run(SHOP, today - d * DAY, 'countries', d % 2 ? 'DE' : 'FR', 3, 4);
  }
  db.exec('COMMIT');
  db.close();

  const { server: s, clock, get } = await server(t, now, dir);
  const urls = [
    `/api/v1/analytics?site=${SHOP}&range=1y`,
    `/api/v1/analytics/pages?site=${SHOP}&from=${now - 299 * DAY + 5 * HOUR}&to=${now - 20 * DAY}&limit=1000`,
  ];
  // The clock moves on: the overview's `to` with it.
  const read = async (url: string) => ({ ...(await get(url)).body, to: 0 });
  const fromDays = await Promise.all(urls.map(read));
  assert.equal(blocksWritten(s.deps.store.read, SHOP), null);

  await clock.advance(FIRST_PASS_DELAY_MS);
  const written = () => blocksWritten(s.deps.store.read, SHOP);
  await within(5_000, 'every block of the days over', () => {
    const blocks = written();
    return blocks !== null && nextBlock(blocks, daysOverAt(clock.now())) === null;
  });
  // From the first day with data up to the last day over, 9 March: the last block of two days ends
  // there, that of 128 days on 27 January (day 20,480).
  assert.equal(written()!.since, today - 299 * DAY);
  assert.equal(written()!.until.get('2d'), MAR10);
  assert.equal(written()!.until.get('128d'), 20_480 * DAY);
  for (const [i, url] of urls.entries()) assert.deepEqual(await read(url), fromDays[i], url);
});

test('pruning keeps blocks for good; an error group not seen for the raw retention goes with its blocks', async (t) => {
  const now = Date.UTC(2026, 2, 10, 14, 20);
  const { server: s } = await server(t, now);
  // 64 days from a day that starts a block of 64, ending more than 35 days ago.
  const old = Math.floor((MAR10 - 100 * DAY) / (64 * DAY)) * 64 * DAY;
  const counts: ['d', number, number][] = [];
  for (let d = 0; d < 64; d++) {
    await writeDims(s, SHOP, 'd', old + d * DAY, [['pages', '/a', 1 + d, 2 + d]]);
    counts.push(['d', old + d * DAY, 1 + d]);
  }
  await writeVitals(s, SHOP, 'd', old, '', 'lcp', [1_200]);
  const gone = await writeErrorGroup(s, {
    site: SHOP,
    fingerprint: 'gone',
    message: 'not seen since',
    firstSeen: old,
    lastSeen: old + 63 * DAY,
    counts,
  });
  const kept = await writeErrorGroup(s, {
    site: SHOP,
    fingerprint: 'kept',
    message: 'seen today',
    firstSeen: old,
    lastSeen: now - HOUR,
    counts,
  });
  await writeDayBlocks(s.deps.store.writer, { now });
  const blockRows = (table: string) =>
    rows(s, `SELECT * FROM ${table} WHERE res NOT IN ('h', 'd') ORDER BY 1, 2, 3`);
  const dims = blockRows('analytics_dims');
  const vitals = blockRows('analytics_vitals');
  assert.ok(dims.length > 0 && vitals.length > 0);
  const listBlocks = rows(s, 'SELECT * FROM analytics_dim_blocks');
  assert.ok(listBlocks.length > 0);
  const groupsOf = () => [...new Set(blockRows('js_error_counts').map((r) => r.group_id))];
  assert.deepEqual(groupsOf(), [gone, kept]);
  assert.ok(now - (old + 63 * DAY) > RAW_RETENTION_MS);
  // Errors are read over 35 days at most: their blocks stop at 32 days, where the lists' go on.
  const longest = (table: string) =>
    Math.max(...blockRows(table).map((row) => Number.parseInt(String(row.res), 10)));
  assert.equal(longest('js_error_counts'), 32);
  assert.ok(longest('analytics_dims') > 32);

  await pruneAnalytics(s.deps, { now });
  assert.deepEqual(blockRows('analytics_dims'), dims);
  assert.deepEqual(blockRows('analytics_vitals'), vitals);
  assert.deepEqual(rows(s, 'SELECT * FROM analytics_dim_blocks'), listBlocks);
  assert.deepEqual(groupsOf(), [kept]);
});

/** Two busy days: 6,000 pages each, half of them both days, with counts that tie around the 1,000th. */
async function writeBusyDays(s: TestServer): Promise<void> {
  for (const [d, at] of [MAR10, MAR11].entries()) {
    const pages = Array.from({ length: 6_000 }, (_, p): [AnalyticsList, string, number, number] => [
      'pages',
      p < 3_000 ? `/both/${p}` : `/day-${d}/${p}`,
      1 + (p % 4),
      1 + ((p * 7) % 13),
    ]);
    const referrers = Array.from({ length: 300 }, (_, r): [AnalyticsList, string, number, number] => [
      'referrers',
      `r${r}.example`,
      1 + (r % 9),
      2,
    ]);
    await writeDims(s, SHOP, 'd', at, [...pages, ...referrers, ['countries', 'FR', 3, 4]]);
  }
}

/** A block of two days as one statement over all its day rows would write it. */
function wholeBlock(s: TestServer) {
  return {
    values: rows(
      s,
      `SELECT list, value, visitors, views FROM (
         SELECT list, value, visitors, views, row_number() OVER (PARTITION BY list
           ORDER BY CASE list WHEN 'pages' THEN views ELSE visitors END DESC, value) AS rank
         FROM (SELECT list, value, sum(visitors) AS visitors, sum(views) AS views FROM analytics_dims
               WHERE site = ? AND res = 'd' AND at IN (?, ?) GROUP BY list, value))
       WHERE rank <= ? ORDER BY list, value`,
      SHOP,
      MAR10,
      MAR11,
      BLOCK_VALUES,
    ),
    lists: rows(
      s,
      `SELECT list, count(*) AS day_rows, count(DISTINCT value) <= ? AS complete FROM analytics_dims
       WHERE site = ? AND res = 'd' AND at IN (?, ?) GROUP BY list ORDER BY list`,
      BLOCK_VALUES,
      SHOP,
      MAR10,
      MAR11,
    ),
  };
}

/** A job of the block pass whose deadline is already past: one step. */
const oneStep = (s: TestServer, now: number, underWay: TwoDaysUnderWay | null) =>
  s.deps.store.writer.run((db) => writeSiteBlocks(db, SHOP, daysOverAt(now), 0, underWay));

const blockOf = (s: TestServer) => ({
  values: rows(
    s,
    "SELECT list, value, visitors, views FROM analytics_dims WHERE res = '2d' AND at = ? ORDER BY list, value",
    MAR10,
  ),
  lists: rows(
    s,
    "SELECT list, day_rows, complete FROM analytics_dim_blocks WHERE res = '2d' AND at = ? ORDER BY list",
    MAR10,
  ),
});

test('a block of two busy days is written in steps of at most STEP_ROWS day rows, keeping the first 1,000 values of each list', async (t) => {
  const now = MAR12 + 2 * HOUR;
  const { server: s } = await server(t, now);
  await writeBusyDays(s);
  const expected = wholeBlock(s);
  assert.equal(expected.values.filter((r) => r.list === 'pages').length, BLOCK_VALUES);

  let underWay: TwoDaysUnderWay | null = null;
  let steps = 0;
  for (;;) {
    const step = await oneStep(s, now, underWay);
    steps++;
    if (step.done) break;
    underWay = step.underWay;
    // Nothing reads the block before it is written whole.
    if (underWay) assert.equal(blocksWritten(s.deps.store.read, SHOP)!.until.get('2d'), MAR10);
  }
  assert.ok(steps >= (2 * 6_000) / STEP_ROWS, `${steps} steps`);
  assert.equal(blocksWritten(s.deps.store.read, SHOP)!.until.get('2d'), MAR12);
  assert.deepEqual(blockOf(s), expected);
});

test('a pass stopped part way through a block of two days leaves no trace: the next one writes it whole', async (t) => {
  const now = MAR12 + 2 * HOUR;
  const { server: s } = await server(t, now);
  await writeBusyDays(s);
  const expected = wholeBlock(s);
  // Two steps of a pass, then the server stops: what was under way is not kept.
  const first = await oneStep(s, now, null);
  await oneStep(s, now, first.underWay);
  assert.equal(blocksWritten(s.deps.store.read, SHOP)!.until.get('2d'), MAR10);
  assert.ok(rows(s, "SELECT 1 FROM analytics_dims WHERE res = '2d'").length > 0);

  await writeDayBlocks(s.deps.store.writer, { now });
  assert.equal(blocksWritten(s.deps.store.read, SHOP)!.until.get('2d'), MAR12);
  assert.deepEqual(blockOf(s), expected);
});
