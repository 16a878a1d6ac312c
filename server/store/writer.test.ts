import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';
import { tempDir, within } from '../testing.ts';
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

test('a lock held by another connection never blocks the event loop; waiting jobs commit once it is released', async (t) => {
  const store = openStore(`${dir}/lock.db`, { maxWaitMs: 2000 });
  await store.writer.run((db) => db.exec('CREATE TABLE t (v INTEGER)'));
  const other = new DatabaseSync(`${dir}/lock.db`);
  other.exec('BEGIN IMMEDIATE');
  // The longest the event loop stood still while the writer waited: one that waited on the loop would
  // stand still for its whole wait (up to 2 s); a busy machine delays a turn by far less.
  let last = performance.now();
  let longest = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 10);
  // A failed assertion must not leave the interval, the lock or the store open: the file would never end.
  t.after(async () => {
    clearInterval(ticker);
    if (other.isOpen) other.close();
    await store.close();
  });
  const write = store.writer.run((db) => db.prepare('INSERT INTO t VALUES (1)').run());
  await within(10_000, 'the writer finds the lock held for 200 ms', () => store.writer.blocked(200));
  assert.ok(
    longest < 1000,
    `the event loop kept turning while the lock was held (stood still ${longest} ms)`,
  );
  other.exec('ROLLBACK');
  await write;
  clearInterval(ticker);
  assert.equal(store.writer.blocked(0), false);
  assert.equal(store.writable(), true);
  const { n } = store.read.prepare('SELECT count(*) AS n FROM t').get() as { n: number };
  assert.equal(n, 1);
  other.close();
});

test('a job that waits longer than maxWaitMs for a lock is refused with 503 and nothing of it is stored', async () => {
  const store = openStore(`${dir}/wait.db`, { maxWaitMs: 100 });
  await store.writer.run((db) => db.exec('CREATE TABLE t (v INTEGER)'));
  const other = new DatabaseSync(`${dir}/wait.db`);
  other.exec('BEGIN IMMEDIATE');
  let committedHook = false;
  await assert.rejects(
    store.writer.run((db, tx) => {
      db.prepare('INSERT INTO t VALUES (1)').run();
      tx.afterCommit(() => {
        committedHook = true;
      });
    }),
    (e: { status: number; retryAfter: number }) => e.status === 503 && e.retryAfter >= 1,
  );
  assert.equal(committedHook, false);
  other.exec('ROLLBACK');
  other.close();
  const { n } = store.read.prepare('SELECT count(*) AS n FROM t').get() as { n: number };
  assert.equal(n, 0);
  await store.close();
});

test('after-commit hooks and live keys follow the commit; rollbacks undo in-memory changes, newest first', async () => {
  const published: string[][] = [];
  const store = openStore(`${dir}/hooks.db`, { onInvalidate: (keys) => published.push(keys) });
  await store.writer.run((db) => db.exec('CREATE TABLE t (v INTEGER UNIQUE)'));
  const memory: number[] = [];
  const seenAtHook: number[] = [];
  const job = (v: number, fail: boolean) =>
    store.writer.run((db, tx) => {
      db.prepare('INSERT INTO t VALUES (?)').run(v);
      memory.push(v);
      tx.onRollback(() => memory.pop());
      tx.invalidate(`service:s${v}`);
      tx.afterCommit(() => {
        const { n } = store.read.prepare('SELECT count(*) AS n FROM t WHERE v = ?').get(v) as { n: number };
        seenAtHook.push(n);
      });
      if (fail) throw new Error('job failed');
    });
  const outcomes = await Promise.allSettled([job(1, false), job(2, true), job(3, false)]);
  assert.deepEqual(
    outcomes.map((o) => o.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.deepEqual(memory, [1, 3], 'the failed job undid its own change');
  assert.deepEqual(seenAtHook, [1, 1], 'hooks of committed jobs only, each seeing its row');
  assert.deepEqual(
    published,
    [['service:s1', 'service:s3']],
    'one publication per commit, failed jobs left out',
  );

  // A transaction that cannot commit (disk full) undoes every job of its batch and answers 503.
  await store.writer.run((db) => db.exec('PRAGMA max_page_count = 1'));
  memory.length = 0;
  const full = await Promise.allSettled([
    store.writer.run((db, tx) => {
      memory.push(10);
      tx.onRollback(() => memory.pop());
      db.prepare('INSERT INTO t VALUES (10)').run();
    }),
    store.writer.run((db, tx) => {
      memory.push(11);
      tx.onRollback(() => memory.pop());
      db.prepare('INSERT INTO t VALUES (zeroblob(1000000))').run();
    }),
  ]);
  for (const outcome of full) {
    assert.equal(outcome.status, 'rejected');
    assert.equal((outcome as PromiseRejectedResult).reason.status, 503);
  }
  assert.deepEqual(memory, []);
  assert.equal(published.length, 1);
  await store.close();
});

test('a writer job must be synchronous', async () => {
  const store = openStore(`${dir}/sync.db`);
  const job = async () => 1;
  // @ts-expect-error an async job does not compile
  await assert.rejects(store.writer.run(job), /must be synchronous/);
  await store.close();
});

test('an idle writer notices a lock held elsewhere within about a second, and its release', async () => {
  const store = openStore(`${dir}/idle-lock.db`);
  await store.writer.run((db) => db.exec('CREATE TABLE t (v INTEGER)'));
  const other = new DatabaseSync(`${dir}/idle-lock.db`);
  other.exec('BEGIN IMMEDIATE');
  assert.equal(store.writable(), true, 'a lock just taken is not yet a problem');
  // Probes every 250 ms see the lock, and a second after the first that did it counts: on a busy machine
  // the probes' timers run late, so wait for the state rather than for 1.4 s.
  const taken = Date.now();
  await within(10_000, 'the lock held elsewhere is noticed', () => !store.writable());
  assert.ok(Date.now() - taken >= 900, `noticed after ${Date.now() - taken} ms, not before a second`);
  other.exec('ROLLBACK');
  await within(10_000, 'the release is noticed', () => store.writable());
  other.close();
  await store.close();
});

test('after a failed commit an idle writer stays unwritable while storage is full, and turns writable within about a second of space coming back', async () => {
  // A full disk needs root: SQLite's page limit (max_page_count) stands in for it, set on the writer's
  // connection from outside so that no write of the writer's own clears the failure.
  const db = new DatabaseSync(`${dir}/space.db`);
  db.exec('PRAGMA journal_mode = WAL');
  const writer = new Writer(db);
  await writer.run((db) => db.exec('CREATE TABLE t (v BLOB)'));
  const { page_count } = db.prepare('PRAGMA page_count').get() as { page_count: number };
  db.exec(`PRAGMA max_page_count = ${page_count}`);
  await assert.rejects(
    writer.run((db) => db.prepare('INSERT INTO t VALUES (zeroblob(100000))').run()),
    { status: 503 },
  );
  assert.equal(writer.canWrite(), false);
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(writer.canWrite(), false, "still full: the probe's own write fails too");
  db.exec('PRAGMA max_page_count = 1073741823');
  await within(1000, 'writable again, with nothing written meanwhile', () => writer.canWrite());
  assert.equal(writer.failure, null);
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all();
  assert.deepEqual(
    tables.map((r) => r.name),
    ['t'],
    "the probe's table is gone",
  );
  await writer.close();
  db.close();
});
