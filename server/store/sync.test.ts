import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';
import { tempDir, within } from '../testing.ts';
import { openStore } from './db.ts';
import { int, scalar } from './rows.ts';
import { Writer } from './writer.ts';

const { dir, remove } = tempDir();
after(remove);

/** A writer whose syncs finish when the test says so. */
function heldSyncs(file: string) {
  const waiting: ((error: Error | null) => void)[] = [];
  const failures: unknown[] = [];
  const db = new DatabaseSync(file);
  db.exec('CREATE TABLE t (v INTEGER)');
  const writer = new Writer(db, {
    sync: () => new Promise<void>((resolve, reject) => waiting.push((e) => (e ? reject(e) : resolve()))),
    onFailure: (error) => failures.push(error),
  });
  const insert = (v: number, log: string[]) =>
    writer.run((db, tx) => {
      db.prepare('INSERT INTO t VALUES (?)').run(v);
      tx.afterCommit(() => log.push(`hook ${v}`));
    });
  return { db, writer, waiting, failures, insert };
}

const turn = () => new Promise((r) => setImmediate(r));

test('callers hear of their commit, and its hooks run, once the sync after it is done', async () => {
  const { db, writer, waiting, insert } = heldSyncs(`${dir}/held.db`);
  const log: string[] = [];
  const first = insert(1, log).then(() => log.push('resolved 1'));
  await turn();
  assert.equal(waiting.length, 1, 'the commit started a sync');
  assert.equal(scalar(db, 'SELECT count(*) FROM t', int), 1, 'committed already');
  assert.equal(log.length, 0, 'nobody heard of it before the sync');

  // Batches committed while a sync runs wait for the next one, which covers them all.
  const second = insert(2, log).then(() => log.push('resolved 2'));
  await turn();
  const third = insert(3, log).then(() => log.push('resolved 3'));
  await turn();
  assert.equal(scalar(db, 'SELECT count(*) FROM t', int), 3);
  assert.equal(waiting.length, 1, 'one sync at a time');
  let flushed = false;
  const flush = writer.flush().then(() => {
    flushed = true;
  });

  waiting.shift()!(null);
  await first;
  assert.deepEqual(log, ['hook 1', 'resolved 1']);
  assert.equal(waiting.length, 1, 'the batches committed meanwhile share the next sync');
  assert.equal(flushed, false, 'flush waits for the syncs too');
  waiting.shift()!(null);
  await Promise.all([second, third, flush]);
  assert.deepEqual(log, ['hook 1', 'resolved 1', 'hook 2', 'hook 3', 'resolved 2', 'resolved 3']);
  assert.equal(waiting.length, 0);
  await writer.close();
  db.close();
});

test('a failed sync refuses its callers with 503 and says storage cannot write; hooks still follow the database', async () => {
  const { db, writer, waiting, failures, insert } = heldSyncs(`${dir}/failed.db`);
  const log: string[] = [];
  const refused = insert(1, log);
  await turn();
  waiting.shift()!(new Error('EIO: i/o error, fsync'));
  await assert.rejects(refused, (e: { status: number; retryAfter: number }) => {
    assert.equal(e.status, 503);
    assert.ok(e.retryAfter >= 1);
    return true;
  });
  assert.deepEqual(log, ['hook 1'], 'the row is in the database: memory follows it');
  assert.equal(failures.length, 1);
  assert.equal(writer.canWrite(), false, 'health reports the failure');
  assert.match(writer.failure ?? '', /EIO/);

  const next = insert(2, log);
  await turn();
  waiting.shift()!(null);
  await next;
  assert.equal(writer.canWrite(), true, 'a sync that works clears it');
  await writer.close();
  db.close();
});

test('after a failed sync an idle writer clears the failure once the sync of its probe works', async () => {
  const { db, writer, waiting, insert } = heldSyncs(`${dir}/probe.db`);
  const refused = insert(1, []);
  await turn();
  waiting.shift()!(new Error('EIO: i/o error, fsync'));
  await assert.rejects(refused, { status: 503 });
  assert.equal(writer.canWrite(), false);
  // The idle writer's probe commits a write of its own and syncs it: still failing, then working.
  await within(2000, "the probe's sync", () => waiting.length === 1);
  waiting.shift()!(new Error('EIO: i/o error, fsync'));
  await turn();
  assert.equal(writer.canWrite(), false, 'a probe whose sync fails clears nothing');
  await within(2000, "the next probe's sync", () => waiting.length === 1);
  waiting.shift()!(null);
  await turn();
  assert.equal(writer.canWrite(), true, 'nothing was written by anyone else meanwhile');
  await writer.close();
  db.close();
});

test('a sync that hangs makes the writer stalled, for /healthz', async () => {
  const { db, writer, waiting, insert } = heldSyncs(`${dir}/hung.db`);
  const pending = insert(1, []);
  await turn();
  assert.equal(writer.stalled(50), false);
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(writer.stalled(50), true, 'the sync has run longer than allowed');
  waiting.shift()!(null);
  await pending;
  assert.equal(writer.stalled(50), false);
  await writer.close();
  db.close();
});

test("the server's store commits at NORMAL and syncs the WAL itself; closing lets go of the WAL", async () => {
  const openFiles = () => readdirSync('/proc/self/fd').length;
  const before = openFiles();
  const store = openStore(`${dir}/server.db`, { syncInBackground: true });
  const level = await store.writer.run((db) => scalar(db, 'PRAGMA synchronous', int));
  assert.equal(level, 1, 'NORMAL: the commit writes, the sync follows on the thread pool');
  await store.writer.run((db) => db.exec('CREATE TABLE t (v INTEGER)'));
  await Promise.all(
    Array.from({ length: 50 }, (_, v) =>
      store.writer.run((db) => db.prepare('INSERT INTO t VALUES (?)').run(v)),
    ),
  );
  assert.equal(scalar(store.read, 'SELECT count(*) FROM t', int), 50);
  await store.close();
  assert.equal(openFiles(), before, 'no descriptor left open');
  const again = openStore(`${dir}/server.db`);
  assert.equal(scalar(again.read, 'SELECT count(*) FROM t', int), 50);
  await again.close();
});
