import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from '../testing.ts';
import { openStore } from './db.ts';
import { IngestQueue } from './ingest.ts';

const { dir, remove } = tempDir();
after(remove);

/** A store with a table `t (v)` and a queue that inserts its items there. */
async function setup(
  name: string,
  options: { maxWaitMs?: number; maxKept?: number; maxAcknowledged?: number; windowMs?: number } = {},
) {
  let commits = 0;
  const store = openStore(`${dir}/${name}.db`, {
    onCommit: () => commits++,
    ...(options.maxWaitMs === undefined ? {} : { maxWaitMs: options.maxWaitMs }),
  });
  await store.writer.run((db) => db.exec('CREATE TABLE t (v INTEGER)'));
  const dropped: number[] = [];
  let full = 0;
  const queue = new IngestQueue<number>({
    writer: store.writer,
    retryMs: 20,
    windowMs: options.windowMs ?? 0,
    ...(options.maxKept === undefined ? {} : { maxKept: options.maxKept }),
    ...(options.maxAcknowledged === undefined ? {} : { maxAcknowledged: options.maxAcknowledged }),
    onUnavailable: () => full++,
    onDropped: (items) => dropped.push(items.length),
    apply: (tx, items) => {
      const insert = tx.db.prepare('INSERT INTO t VALUES (?)');
      for (const v of items) {
        if (v < 0) throw new Error('a bad item');
        insert.run(v);
      }
    },
  });
  const stored = () =>
    (store.read.prepare('SELECT v FROM t ORDER BY rowid').all() as { v: number }[]).map((r) => r.v);
  return { store, queue, stored, commits: () => commits, dropped, full: () => full };
}

test('an acknowledged item resolves once it can be read; items arriving together share one commit', async () => {
  const { store, queue, stored, commits } = await setup('ack');
  const before = commits();
  const acks = Array.from({ length: 500 }, (_, i) =>
    queue.submit(i).then(() => assert.ok(stored().includes(i), `item ${i} is stored when acknowledged`)),
  );
  await Promise.all(acks);
  assert.equal(commits() - before, 1);
  assert.equal(stored().length, 500);
  await store.close();
});

test('beyond its acknowledged limit, submit answers 503 at once and counts a full queue; so does a stopped queue', async () => {
  const { store, queue, stored, full } = await setup('full', { maxAcknowledged: 3 });
  const accepted = [1, 2, 3].map((v) => queue.submit(v));
  await assert.rejects(
    queue.submit(4),
    (e: { status: number; retryAfter: number }) => e.status === 503 && e.retryAfter >= 1,
  );
  assert.equal(full(), 1);
  await Promise.all(accepted);
  assert.deepEqual(stored(), [1, 2, 3]);
  await queue.close();
  await assert.rejects(queue.submit(5), (e: { status: number }) => e.status === 503);
  assert.equal(full(), 2);
  await store.close();
});

test('while storage refuses, acknowledged items answer 503 and unacknowledged ones wait, in order', async () => {
  const { store, queue, stored, full } = await setup('lock', { maxWaitMs: 100 });
  const other = new DatabaseSync(`${dir}/lock.db`);
  other.exec('BEGIN IMMEDIATE');
  queue.offer(1);
  const ack = queue.submit(2);
  queue.offer(3);
  await assert.rejects(ack, (e: { status: number }) => e.status === 503);
  assert.equal(full(), 1, 'the refusal is counted as the queue being unable to take it');
  queue.offer(4);
  await new Promise((r) => setTimeout(r, 150));
  assert.deepEqual(stored(), []);
  other.exec('ROLLBACK');
  other.close();
  await queue.submit(5);
  assert.deepEqual(
    stored(),
    [1, 3, 4, 5],
    'the refused acknowledged item is not stored; the rest keep their order',
  );
  await store.close();
});

test('unacknowledged items are kept up to a limit, dropping the oldest of them, never an acknowledged one', async () => {
  const { store, queue, stored, dropped } = await setup('kept', { maxWaitMs: 60_000, maxKept: 2 });
  const other = new DatabaseSync(`${dir}/kept.db`);
  other.exec('BEGIN IMMEDIATE');
  queue.offer(1);
  const ack = queue.submit(2);
  queue.offer(3);
  queue.offer(4); // drops 1, the oldest unacknowledged
  assert.deepEqual(dropped, [1]);
  other.exec('ROLLBACK');
  other.close();
  await ack;
  await queue.flush();
  assert.deepEqual(stored(), [2, 3, 4]);
  await store.close();
});

test('a batch that fails for one item of its own is split until that item is alone: only it is lost', async () => {
  const { store, queue, stored, dropped } = await setup('bad');
  const items = [1, 2, 3, -1, 4, 5, -2, 6];
  const outcomes = Promise.allSettled(
    items.map((v) => (v === -1 ? queue.submit(v) : Promise.resolve(queue.offer(v)))),
  );
  const settled = await outcomes;
  assert.equal(settled[3]?.status, 'rejected');
  assert.match(String((settled[3] as PromiseRejectedResult).reason), /a bad item/);
  await queue.flush();
  assert.deepEqual(stored(), [1, 2, 3, 4, 5, 6]);
  assert.deepEqual(dropped, [1], 'the unacknowledged bad item is dropped alone');
  await queue.submit(7);
  assert.deepEqual(stored(), [1, 2, 3, 4, 5, 6, 7]);
  await store.close();
});

test('an item refused by apply answers its own error; the rest of its batch commits', async () => {
  const store = openStore(`${dir}/refuse.db`);
  await store.writer.run((db) => db.exec('CREATE TABLE t (v INTEGER)'));
  const queue = new IngestQueue<number>({
    writer: store.writer,
    windowMs: 0,
    apply: (tx, items, refuse) =>
      items.forEach((v, i) => {
        if (v === 0) refuse(i, new Error('zero is not taken'));
        else tx.db.prepare('INSERT INTO t VALUES (?)').run(v);
      }),
  });
  const results = await Promise.allSettled([queue.submit(1), queue.submit(0), queue.submit(2)]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  const rows = store.read.prepare('SELECT v FROM t').all() as { v: number }[];
  assert.deepEqual(
    rows.map((r) => r.v),
    [1, 2],
  );
  await store.close();
});

test('close stores what waits, then refuses', async () => {
  const { store, queue, stored } = await setup('close');
  queue.offer(1);
  queue.offer(2);
  await queue.close();
  assert.deepEqual(stored(), [1, 2]);
  await assert.rejects(queue.submit(3), (e: { status: number }) => e.status === 503);
  await store.close();
});

test('an idle queue writes at once, without waiting for the window', async () => {
  // A window of a minute: an item that waited for it would still be waiting when the race is decided.
  const { store, queue, stored } = await setup('idle', { windowMs: 60_000 });
  const gaveUp = new AbortController();
  const first = await Promise.race([
    queue.submit(0).then(() => 'stored'),
    sleep(10_000, 'waited for the window', { signal: gaveUp.signal }).catch(() => 'aborted'),
  ]);
  gaveUp.abort();
  assert.equal(first, 'stored');
  assert.deepEqual(stored(), [0]);
  await store.close();
});

test('under steady load, items arriving one at a time share commits', async () => {
  const { store, queue, stored, commits } = await setup('steady', { windowMs: 20 });
  await queue.submit(0);

  const before = commits();
  const acks: Promise<void>[] = [];
  for (let i = 1; i <= 200; i++) {
    acks.push(queue.submit(i));
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(acks);
  const used = commits() - before;
  assert.ok(used < 50, `200 items one at a time took ${used} commits`);
  assert.equal(stored().length, 201);
  await store.close();
});

test('with weights, a job takes items while their total stays within its limit, and always one', async () => {
  const store = openStore(`${dir}/weights.db`, {});
  const jobs: number[][] = [];
  const queue = new IngestQueue<number>({
    writer: store.writer,
    windowMs: 0,
    maxBatch: 4,
    weigh: (v) => v,
    maxWeight: 10,
    apply: (_tx, items) => {
      jobs.push(items);
    },
  });
  await Promise.all([3, 3, 3, 3, 1, 1, 1, 1, 1, 25, 2].map((v) => queue.submit(v)));
  assert.deepEqual(jobs.flat(), [3, 3, 3, 3, 1, 1, 1, 1, 1, 25, 2]);
  for (const job of jobs) {
    assert.ok(job.length <= 4, `at most maxBatch: ${job}`);
    const total = job.reduce((a, b) => a + b, 0);
    assert.ok(total <= 10 || job.length === 1, `within the weight, or alone: ${job}`);
  }
  await store.close();
});
