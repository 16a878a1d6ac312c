import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';
import { tempDir } from '../testing.ts';
import { openStore } from './db.ts';
import { Writer } from './writer.ts';

const { dir, remove } = tempDir();
after(remove);

test('a batch commits in one transaction and settles each caller with its own result', async () => {
  let commits = 0;
  const store = openStore(`${dir}/batch.db`, { onCommit: () => commits++ });
  await store.writer.run((db) => db.exec('CREATE TABLE t (v INTEGER)'));
  const before = commits;
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      store.writer.run((db) => db.prepare('INSERT INTO t VALUES (?)').run(i)),
    ),
  );
  assert.equal(results.length, 100);
  assert.equal(commits - before, 1, 'one transaction for jobs enqueued together');
  const { n } = store.read.prepare('SELECT count(*) AS n FROM t').get() as { n: number };
  assert.equal(n, 100);
  await store.close();
});

test('a failing job rolls back alone; the rest of its batch commits', async () => {
  const store = openStore(`${dir}/isolation.db`);
  await store.writer.run((db) => db.exec('CREATE TABLE t (v INTEGER UNIQUE)'));
  const outcomes = await Promise.allSettled([
    store.writer.run((db) => db.prepare('INSERT INTO t VALUES (1)').run()),
    store.writer.run((db) => {
      db.prepare('INSERT INTO t VALUES (2)').run();
      db.prepare('INSERT INTO t VALUES (1)').run(); // violates UNIQUE: the 2 must go too
    }),
    store.writer.run((db) => db.prepare('INSERT INTO t VALUES (3)').run()),
  ]);
  assert.deepEqual(
    outcomes.map((o) => o.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  const rows = store.read.prepare('SELECT v FROM t ORDER BY v').all() as { v: number }[];
  assert.deepEqual(
    rows.map((r) => r.v),
    [1, 3],
  );
  await store.close();
});

test('a full queue refuses with 503 and Retry-After instead of growing', async () => {
  let refused = 0;
  const writer = new Writer(new DatabaseSync(':memory:'), {
    maxQueue: 3,
    onQueueFull: () => refused++,
  });
  const accepted = [1, 2, 3].map(() => writer.run(() => 1));
  await assert.rejects(
    writer.run(() => 1),
    (error: { status: number; retryAfter: number }) => {
      assert.equal(error.status, 503);
      assert.ok(error.retryAfter >= 1);
      return true;
    },
  );
  assert.equal(refused, 1);
  assert.deepEqual(await Promise.all(accepted), [1, 1, 1]);
});

test('reads see committed writes and never wait for the writer', async () => {
  const store = openStore(`${dir}/reads.db`);
  await store.writer.run((db) => db.exec('CREATE TABLE t (v INTEGER)'));
  const pending = store.writer.run((db) => db.prepare('INSERT INTO t VALUES (7)').run());
  // Not committed yet: the read answers at once with what is committed.
  const { n } = store.read.prepare('SELECT count(*) AS n FROM t').get() as { n: number };
  assert.equal(n, 0);
  await pending;
  const after = store.read.prepare('SELECT count(*) AS n FROM t').get() as { n: number };
  assert.equal(after.n, 1);
  await store.close();
});

test('close commits what is queued, then refuses new work', async () => {
  const store = openStore(`${dir}/close.db`);
  await store.writer.run((db) => db.exec('CREATE TABLE t (v INTEGER)'));
  const queued = store.writer.run((db) => db.prepare('INSERT INTO t VALUES (1)').run());
  await store.writer.close();
  await queued;
  await assert.rejects(
    store.writer.run(() => 1),
    (e: { status: number }) => e.status === 503,
  );
  await store.close();
});
