import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import test from 'node:test';
import { tempDir } from '../testing.ts';
import { startCheckpoints, WRITER_CHECKPOINT_PAGES } from './checkpoints.ts';
import { openStore } from './db.ts';
import { int, scalar } from './rows.ts';

const PAGE = 4096;
/** About 2,500 pages: past SQLite's own checkpoint threshold (1,000), far below the writer's backstop. */
const ROWS = 2500;

async function writeRows(store: ReturnType<typeof openStore>): Promise<void> {
  await store.writer.run((db) => {
    db.exec('CREATE TABLE filler (n INTEGER PRIMARY KEY, bytes BLOB NOT NULL)');
    const insert = db.prepare('INSERT INTO filler (n, bytes) VALUES (?, randomblob(?))');
    for (let n = 0; n < ROWS; n++) insert.run(n, PAGE - 200);
  });
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const by = Date.now() + ms;
  while (Date.now() < by) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return condition();
}

test('a thread of its own copies the WAL back into the database; the writer only past its backstop', async (t) => {
  const { dir, remove } = tempDir('mon-checkpoints-');
  t.after(remove);
  const file = join(dir, 'mon.db');
  const store = openStore(file, { checkpointInBackground: true });
  const backstop = await store.writer.run((db) => scalar(db, 'PRAGMA wal_autocheckpoint', int));
  assert.equal(backstop, WRITER_CHECKPOINT_PAGES);
  await writeRows(store);
  assert.ok(
    await until(() => statSync(file).size >= ROWS * PAGE, 5000),
    'the background thread checkpointed the WAL',
  );
  await store.close();
  // Closing stops the thread and truncates the WAL; the rows are in the database.
  assert.equal(statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0, 0);
  const again = openStore(file);
  t.after(() => again.close());
  assert.equal(scalar(again.read, 'SELECT count(*) FROM filler', int), ROWS);
});

test('without the thread, the writer checkpoints in its commits as SQLite does by default', async (t) => {
  const { dir, remove } = tempDir('mon-checkpoints-');
  t.after(remove);
  const file = join(dir, 'mon.db');
  const store = openStore(file);
  t.after(() => store.close());
  await writeRows(store);
  assert.ok(statSync(file).size >= ROWS * PAGE * 0.3, 'the commit checkpointed');
});

test('a thread that cannot open the database ends; the writer is told, and stopping it still resolves', async (t) => {
  const { dir, remove } = tempDir('mon-checkpoints-');
  t.after(remove);
  const told: string[] = [];
  const checkpoints = startCheckpoints(join(dir, 'missing', 'mon.db'), { stopped: (why) => told.push(why) });
  assert.ok(await until(() => told.length === 1, 5000), 'the writer heard that the thread ended');
  assert.match(told[0]!, /unable to open/, 'and why, for the log');
  await checkpoints.stop();
  await checkpoints.stop();
  assert.equal(told.length, 1);
});
