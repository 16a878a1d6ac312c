import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { migrate } from '../store/db.ts';
import { readHistory } from './history.ts';

function database(failures: number[], changes: number[] = []): DatabaseSync {
  const db = new DatabaseSync(':memory:');
  migrate(db);
  const run = db.prepare(
    "INSERT INTO check_runs (check_id, ts, status, latency_ms, detail) VALUES ('c1', ?, 'down', 1, 'x')",
  );
  for (const ts of failures) run.run(ts);
  const change = db.prepare(
    "INSERT INTO check_changes (check_id, service, ts, status, title, detail) VALUES ('c1', 's', ?, 'down', 'down', '')",
  );
  for (const ts of changes) change.run(ts);
  return db;
}

/** Every page from the newest: returns the pages' timestamps and checks that `next` leads on. */
function pages(db: DatabaseSync, limit: number): number[][] {
  const out: number[][] = [];
  let before = Number.MAX_SAFE_INTEGER;
  for (let i = 0; i < 100; i++) {
    const page = readHistory(db, 'c1', before, limit);
    assert.ok(page.items.length > 0, `page ${i} is empty though the previous one had next = ${before}`);
    out.push(page.items.map((item) => item.ts));
    if (page.next === null) return out;
    before = page.next;
  }
  assert.fail('too many pages');
}

test('a group larger than the limit is one page; next is null when nothing older exists', () => {
  assert.deepEqual(pages(database([500, 500, 500, 500, 500]), 2), [[500, 500, 500, 500, 500]]);
  assert.deepEqual(pages(database([500, 500, 500, 400]), 2), [[500, 500, 500], [400]]);
});

test('pages never split a timestamp and together hold every item, newest first', () => {
  const db = database([900, 800, 800, 700, 600, 600, 600, 500], [800, 600]);
  for (const limit of [1, 2, 3, 4, 20]) {
    const all = pages(db, limit);
    assert.deepEqual(all.flat(), [900, 800, 800, 800, 700, 600, 600, 600, 600, 500], `limit ${limit}`);
    for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.at(-1)! > all[i]![0]!, 'no timestamp split');
  }
});
