import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../clock.ts';
import { createTestServer, memoryLog } from '../testing.ts';

test('a full disk writes its first failed transaction at once, then a line a minute with the count', async (t) => {
  const clock = new FakeClock();
  const memory = memoryLog();
  const server = await createTestServer({ clock, log: memory.log });
  t.after(() => server.dispose());
  const failed = () => memory.lines().filter((l) => l.message === 'a write transaction failed');
  // A full disk needs root: SQLite's page limit stands in for it (a new blob needs pages).
  await server.deps.store.writer.run((db) => {
    db.exec('CREATE TABLE filler (x BLOB)');
    const { page_count } = db.prepare('PRAGMA page_count').get() as { page_count: number };
    db.exec(`PRAGMA max_page_count = ${page_count}`);
  });
  const fail = () =>
    assert.rejects(
      server.deps.store.writer.run((db) => db.exec('INSERT INTO filler VALUES (zeroblob(100000))')),
      { status: 503 },
    );
  // One transaction each: a failure apiece.
  for (let i = 0; i < 40; i++) await fail();
  assert.deepEqual(
    failed().map((l) => [l.count, l.error]),
    [[1, 'Error: database or disk is full']],
  );
  await clock.advance(59_000);
  assert.equal(failed().length, 1, 'nothing more within the minute');
  await clock.advance(1_000);
  assert.deepEqual(
    failed().map((l) => l.count),
    [1, 39],
  );
  for (let i = 0; i < 5; i++) await fail();
  await clock.advance(60_000);
  assert.deepEqual(
    failed().map((l) => l.count),
    [1, 39, 5],
  );
  await clock.advance(60_000);
  assert.equal(failed().length, 3, 'a quiet minute writes nothing');
  await server.deps.store.writer.run((db) => db.exec('PRAGMA max_page_count = 1073741823'));
});
