import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Receiver, startReceiver } from '../server/http/fixtures/receiver.ts';
import { tempDir, within } from '../server/testing.ts';
import { createBacklog } from './backlog.ts';
import { frame, outboxWorld, textsOf } from './fixtures/outbox-world.ts';
import { createAgentLog } from './log.ts';
import { openSpool } from './spool.ts';

let receiver: Receiver;
before(async () => {
  receiver = await startReceiver();
});
after(() => receiver.close());

test('a spool that cannot be written: batches are kept in memory and sent from there, logged once; back, memory goes to the spool first', async () => {
  const w = await outboxWorld(receiver.url, 'mon-backlog-');
  const { dir, spoolDir, clock, outbox, logged } = w;
  try {
    receiver.received.length = 0;
    // The server is down: nothing is deleted, everything waits.
    receiver.answer = () => ({ status: 503, headers: { 'retry-after': '5' } });
    outbox.add(frame('on disk'));
    await outbox.flush();
    await receiver.arrived(1);
    await clock.armed();

    // The state directory stops taking writes (root ignores modes: the directory becomes a file).
    renameSync(spoolDir, join(dir, 'spool-away'));
    writeFileSync(spoolDir, '');
    for (const text of ['a', 'b', 'c']) {
      outbox.add(frame(text));
      await outbox.flush();
    }
    const errors = logged.filter((line) => line.includes('cannot write to the spool'));
    assert.equal(errors.length, 1, 'logged once for the run, not once a batch');
    assert.match(errors[0]!, /error cannot write to the spool \(ENOTDIR: .*\): keeping batches in memory/);

    // The server is back: the spool's batch first, then those in memory, in order.
    receiver.answer = () => ({ status: 200, body: { stored: 1, skipped: 0 } });
    renameSync(join(dir, 'spool-away'), join(dir, 'moved'));
    await clock.advance(5000);
    await receiver.arrived(4);
    // The spool's newest file is sent from memory (the spool keeps it); gone with its directory, it
    // cannot be deleted after the 200, and is forgotten.
    assert.deepEqual(receiver.received.slice(1).map(textsOf), [['on disk'], ['a'], ['b'], ['c']]);

    // Writable again: the next batch goes to the spool, and the recovery is said once.
    receiver.answer = () => ({ status: 503, headers: { 'retry-after': '5' } });
    await within(5000, 'the sender idle', () => clock.pending() === 0);
    rmSync(spoolDir);
    mkdirSync(spoolDir, { mode: 0o700 });
    outbox.add(frame('d'));
    await outbox.flush();
    assert.equal(readdirSync(spoolDir).length, 1);
    assert.match(
      logged.join(''),
      /info the spool takes batches again \(3 batch\(es\) were kept in memory meanwhile\)/,
    );
  } finally {
    await w.dispose();
  }
});

test('memory is bounded: the oldest batches go first, said once; memory is written to the spool before the new batch', async () => {
  const { dir, remove } = tempDir('mon-backlog-');
  const logged: string[] = [];
  const log = createAgentLog({ write: (line) => logged.push(line) });
  const spoolDir = join(dir, 'spool');
  let ts = 1_000;
  const spool = await openSpool(spoolDir, { now: () => ts++ });
  const backlog = createBacklog(spool, log, { maxFiles: 2 });
  try {
    renameSync(spoolDir, join(dir, 'away'));
    writeFileSync(spoolDir, '');
    for (const text of ['1', '2', '3']) await backlog.add(Buffer.from(text));
    assert.deepEqual(backlog.size(), { files: 2, bytes: 2 });
    assert.equal((await backlog.oldest())?.body.toString(), '2', 'the oldest was dropped');
    assert.equal(logged.filter((line) => line.includes('dropping the oldest')).length, 1);

    rmSync(spoolDir);
    mkdirSync(spoolDir, { mode: 0o700 });
    await backlog.add(Buffer.from('4'));
    const names = readdirSync(spoolDir).sort();
    assert.equal(names.length, 3);
    assert.deepEqual(
      names.map((name) => readFileSync(join(spoolDir, name), 'utf8')),
      ['2', '3', '4'],
      'in the order they were taken',
    );
    assert.match(
      logged.join(''),
      /3 batch\(es\) were kept in memory meanwhile, 1 of them dropped for want of room/,
    );
  } finally {
    remove();
  }
});
