import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { purgeParts } from '../checks/removed.ts';
import { rollupParts } from '../checks/rollups.ts';
import { runParts } from '../checks/runs.ts';
import { tempDir } from '../testing.ts';
import { openStore } from './db.ts';
import {
  nextChunkRows,
  PRUNE_CHUNK_MS,
  PRUNE_CHUNK_ROWS,
  type PrunePart,
  pruneInChunks,
  pruneNow,
} from './pruning.ts';
import { int, scalar } from './rows.ts';
import { statement } from './statements.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 28);

function store(t: { after: (fn: () => Promise<void>) => void }) {
  const { dir, remove } = tempDir();
  const s = openStore(join(dir, 'mon.db'));
  t.after(async () => {
    await s.close();
    remove();
  });
  return s;
}

test('a job is sized to the time the last one took: smaller when rows are slow, at most twice as big when quick', () => {
  // 500 rows took 100 ms: 100 fit in PRUNE_CHUNK_MS.
  assert.equal(nextChunkRows(500, 500, 5 * PRUNE_CHUNK_MS, PRUNE_CHUNK_ROWS), 100);
  // Very slow rows: never below the floor, so that a pass ends.
  assert.equal(nextChunkRows(500, 500, 10_000, PRUNE_CHUNK_ROWS), 50);
  // Quick rows: doubles, up to the most the caller allows.
  assert.equal(nextChunkRows(500, 500, 1, PRUNE_CHUNK_ROWS), 1_000);
  assert.equal(nextChunkRows(4_000, 4_000, 1, PRUNE_CHUNK_ROWS), PRUNE_CHUNK_ROWS);
  assert.equal(nextChunkRows(10, 10, 1, 10), 10, 'a caller asking for 10 rows gets no more');
  // Nothing deleted (the time ran out on empty parts): no measure, same size.
  assert.equal(nextChunkRows(800, 0, 30, PRUNE_CHUNK_ROWS), 800);
});

test('a pass whose rows are slow to delete runs in jobs that shrink to fit, and deletes everything', async (t) => {
  const { writer } = store(t);
  await writer.run((db) => {
    db.exec('CREATE TABLE junk (id INTEGER PRIMARY KEY)');
    const insert = statement(db, 'INSERT INTO junk (id) VALUES (?)');
    for (let i = 0; i < 3_000; i++) insert.run(i);
  });
  const limits: number[] = [];
  // A part that costs 0.2 ms a row, as a big indexed table on a busy disk does.
  const slow: PrunePart = (db, limit) => {
    limits.push(limit);
    const n = Number(
      statement(db, 'DELETE FROM junk WHERE id IN (SELECT id FROM junk LIMIT ?)').run(limit).changes,
    );
    const until = performance.now() + n * 0.2;
    while (performance.now() < until);
    return n;
  };
  const { deleted, jobs } = await pruneInChunks(writer, () => [slow]);
  assert.equal(deleted, 3_000);
  assert.equal(jobs, limits.length);
  assert.equal(limits[0], 500, 'the first job, before any measure');
  // 500 rows took >= 100 ms, so the next job has at most 100 rows (0.2 ms each fill 20 ms).
  assert.ok(Math.max(...limits.slice(1)) <= 100, `limits ${limits.join(', ')}`);
});

test("checks' runs, rollups and removed checks go in chunks, as they would at once", async (t) => {
  const chunked = store(t);
  const atOnce = store(t);
  const fill = (s: typeof chunked) =>
    s.writer.run((db) => {
      const run = statement(
        db,
        "INSERT INTO check_runs (check_id, ts, status, latency_ms, detail) VALUES (?, ?, ?, 1, '')",
      );
      const rollup = statement(
        db,
        "INSERT INTO check_rollups (check_id, res, bucket, up, down, degraded, lat_count, lat_sum, value_count, value_sum, hist) VALUES (?, ?, ?, 1, 0, 0, 1, 1, 0, 0, '{}')",
      );
      statement(
        db,
        `INSERT INTO removed_checks (id, name, service, kind, body, managed, host_defined, created_at,
           updated_at, status, fail_streak, ok_streak, ping_token_file, ping_urls_made, removed_at)
         VALUES ('gone', 'gone', 'shop', 'http', '{}', 1, 0, 0, 0, 'up', 0, 0, 0, 0, ?)`,
      ).run(NOW - 2 * DAY);
      for (const id of ['a', 'b', 'gone']) {
        // Three days of runs a minute (a failure every tenth), then rollups past and within their time.
        for (let i = 0; i < 3 * 1_440; i++) run.run(id, NOW - i * 60_000, i % 10 === 0 ? 'down' : 'up');
        for (let i = 0; i < 4 * 1_440; i++) rollup.run(id, 'm', NOW - i * 60_000);
      }
    });
  await fill(chunked);
  await fill(atOnce);
  const parts = (now: number) => [
    ...['a', 'b'].flatMap((id) => runParts(id, now, 2 * DAY + 60_000)),
    ...rollupParts(now),
    ...purgeParts('gone'),
  ];
  const { deleted, jobs } = await pruneInChunks(chunked.writer, () => parts(NOW));
  const once = await atOnce.writer.run((db) => pruneNow(db, parts(NOW)));
  assert.equal(deleted, once);
  assert.ok(jobs > 1, `${jobs} jobs for ${deleted} rows`);
  const left = (s: typeof chunked, sql: string) => scalar(s.read, sql, int);
  for (const sql of [
    'SELECT count(*) AS n FROM check_runs',
    "SELECT count(*) AS n FROM check_runs WHERE status = 'down'",
    'SELECT count(*) AS n FROM check_rollups',
    "SELECT count(*) AS n FROM check_runs WHERE check_id = 'gone'",
    'SELECT count(*) AS n FROM removed_checks',
  ]) {
    assert.equal(left(chunked, sql), left(atOnce, sql), sql);
  }
  // Up runs keep 2 days, failures 2 days and a minute; minute rollups 2 days; nothing of `gone`.
  assert.equal(left(chunked, "SELECT count(*) AS n FROM check_runs WHERE check_id = 'gone'"), 0);
  assert.equal(left(atOnce, 'SELECT count(*) AS n FROM removed_checks'), 0, 'its row goes last, at once too');
  assert.equal(left(chunked, "SELECT count(*) AS n FROM check_rollups WHERE check_id = 'a'"), 2 * 1_440 + 1);
});
