import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { AgentFrame, FramesBody } from '../protocol/agent.ts';
import { hostServer, sample, T0 } from '../server/hosts/testkit.ts';
import { tempDir } from '../server/testing.ts';
import { busySample } from './fixtures/sample.ts';
import { openSpool, REJECTED_MAX_FILES, SPOOL_MAX_BYTES, SPOOL_MAX_FILES, syncDirectory } from './spool.ts';
import { encodeFrames } from './transport.ts';

const body = (text: string) => Buffer.from(text);

test('files come out oldest first, are deleted when removed, and survive a restart', async () => {
  const { dir, remove } = tempDir('mon-spool-');
  try {
    let now = 5000;
    const spool = await openSpool(dir, { now: () => now });
    await spool.add(body('one'));
    await spool.add(body('two'));
    now = 6000;
    await spool.add(body('three'));
    assert.deepEqual(spool.size(), { files: 3, bytes: 11 });
    const first = await spool.oldest();
    assert.equal(first?.body.toString(), 'one');
    await spool.remove(first!.name);
    assert.equal(readdirSync(dir).length, 2);

    // A new agent process on the same directory finds them, in the same order.
    now = 1000; // and a clock set back cannot put a new file before them
    const again = await openSpool(dir, { now: () => now });
    assert.deepEqual(again.size(), { files: 2, bytes: 8 });
    await again.add(body('four'));
    const texts: string[] = [];
    for (let file = await again.oldest(); file; file = await again.oldest()) {
      texts.push(file.body.toString());
      await again.remove(file.name);
    }
    assert.deepEqual(texts, ['two', 'three', 'four']);
    assert.deepEqual(readdirSync(dir), []);
  } finally {
    remove();
  }
});

test('after(name) is the next oldest, read back from disk; a file removed by hand is skipped', async () => {
  const { dir, remove } = tempDir('mon-spool-');
  try {
    const spool = await openSpool(dir, { now: () => 5000 });
    for (const text of ['one', 'two', 'three', 'four']) await spool.add(body(text));
    const names = readdirSync(dir).sort();
    assert.equal((await spool.after(names[0]!))?.body.toString(), 'two');
    unlinkSync(join(dir, names[1]!));
    const next = await spool.after(names[0]!);
    assert.equal(next?.body.toString(), 'three', 'the missing one skipped');
    assert.deepEqual(spool.size(), { files: 3, bytes: 12 });
    assert.equal(await spool.after(names[3]!), null, 'none after the newest');
    assert.equal(await spool.after('000000000000001-000000.json.gz'), null, 'none after an unknown name');
  } finally {
    remove();
  }
});

test('0600 files in a 0700 directory; a write cut short is cleared at start; other files are left alone', async () => {
  const { dir, remove } = tempDir('mon-spool-');
  try {
    const spoolDir = join(dir, 'spool');
    mkdirSync(spoolDir, { mode: 0o755 });
    chmodSync(spoolDir, 0o755);
    writeFileSync(join(spoolDir, 'tmp-000000000001000-000000.json.gz'), 'half a bo');
    writeFileSync(join(spoolDir, 'notes.txt'), 'mine');
    const spool = await openSpool(spoolDir);
    assert.equal(statSync(spoolDir).mode & 0o777, 0o700);
    assert.deepEqual(spool.size(), { files: 0, bytes: 0 });
    await spool.add(body('frames'));
    const names = readdirSync(spoolDir).sort();
    assert.equal(names.length, 2);
    assert.equal(names[1], 'notes.txt');
    assert.match(names[0]!, /^\d{15}-\d{6}\.json\.gz$/);
    assert.equal(statSync(join(spoolDir, names[0]!)).mode & 0o777, 0o600);
  } finally {
    remove();
  }
});

test('a write that fails leaves no tmp- file behind, and the spool takes the next one', async () => {
  const { dir, remove } = tempDir('mon-spool-');
  try {
    const spoolDir = join(dir, 'spool');
    const spool = await openSpool(spoolDir, { now: () => 1000 });
    // The name the next file takes is a directory: the rename fails after the body was written.
    mkdirSync(join(spoolDir, '000000000001000-000000.json.gz'));
    writeFileSync(join(spoolDir, '000000000001000-000000.json.gz', 'x'), '');
    await assert.rejects(spool.add(body('frames')));
    assert.deepEqual(readdirSync(spoolDir), ['000000000001000-000000.json.gz']);
    assert.deepEqual(spool.size(), { files: 0, bytes: 0 });
    await spool.add(body('next'));
    assert.equal(spool.size().files, 1);
    assert.equal((await spool.oldest())?.body.toString(), 'next');
  } finally {
    remove();
  }
});

test('when full, the oldest go first, counted', async () => {
  const { dir, remove } = tempDir('mon-spool-');
  try {
    const drops: [number, number][] = [];
    let now = 1;
    const byFiles = await openSpool(join(dir, 'a'), {
      maxFiles: 3,
      now: () => now++,
      onDrop: (count, total) => drops.push([count, total]),
    });
    for (const text of ['1', '2', '3', '4', '5']) await byFiles.add(body(text));
    assert.deepEqual(drops, [
      [1, 1],
      [1, 2],
    ]);
    assert.equal(byFiles.dropped(), 2);
    assert.equal((await byFiles.oldest())?.body.toString(), '3');
    assert.equal(readdirSync(join(dir, 'a')).length, 3);

    const byBytes = await openSpool(join(dir, 'b'), { maxBytes: 10, now: () => now++ });
    await byBytes.add(body('aaaa'));
    await byBytes.add(body('bbbb'));
    await byBytes.add(body('cccccc'));
    assert.deepEqual(byBytes.size(), { files: 2, bytes: 10 });
    assert.equal((await byBytes.oldest())?.body.toString(), 'bbbb');
    assert.equal(byBytes.dropped(), 1);
  } finally {
    remove();
  }
});

test('a one-hour outage fits: 240 samples with 50 containers and 200 units, each in its own batch', async (t) => {
  const { dir, remove } = tempDir('mon-spool-');
  try {
    const spool = await openSpool(dir);
    const start = Date.UTC(2026, 0, 1);
    let sizes: number[] = [];
    for (let n = 0; n < 240; n++) {
      const ts = start + n * 15_000;
      const frames: AgentFrame[] = [
        busySample(ts, n),
        { kind: 'log', lines: [{ ts, level: 'warn', text: 'cannot send frames (ECONNREFUSED)' }] },
      ];
      const { bodies } = await encodeFrames(frames);
      assert.equal(bodies.length, 1);
      sizes = [...sizes, bodies[0]!.length];
      await spool.add(bodies[0]!);
    }
    const { files, bytes } = spool.size();
    const mean = Math.round(bytes / files);
    t.diagnostic(
      `one sample (50 containers, 200 units) gzipped: ${mean} bytes on average (${Math.min(...sizes)}–${Math.max(...sizes)}); ` +
        `an hour (240 samples): ${(bytes / 1024 / 1024).toFixed(2)} MiB of the ${SPOOL_MAX_BYTES / 1024 / 1024} MiB spool`,
    );
    assert.equal(files, 240);
    assert.equal(spool.dropped(), 0);
    assert.ok(bytes < SPOOL_MAX_BYTES / 10, `an hour takes ${bytes} bytes`);
    assert.ok(files < SPOOL_MAX_FILES / 10);
    // What comes out is what went in: the first batch, whole.
    const oldest = await spool.oldest();
    const frames = (JSON.parse(gunzipSync(oldest!.body).toString()) as { frames: AgentFrame[] }).frames;
    assert.deepEqual(frames[0], busySample(start, 0));
  } finally {
    remove();
  }
});

test('a spooled batch keeps its id: sent twice (a lost answer, a restart), the server stores it once', async (t) => {
  const { dir, remove } = tempDir('mon-spool-');
  const kit = await hostServer();
  t.after(async () => {
    await kit.server.dispose();
    remove();
  });
  const token = await kit.addHost('web-1');
  const batchOf = (bytes: Buffer) => (JSON.parse(gunzipSync(bytes).toString()) as FramesBody).batch;

  const { bodies } = await encodeFrames([sample(T0)]);
  const other = await encodeFrames([sample(T0)]);
  assert.match(batchOf(bodies[0]!) ?? '', /^[0-9a-z]{8,64}$/);
  assert.notEqual(batchOf(bodies[0]!), batchOf(other.bodies[0]!), 'each batch has its own id');

  const spool = await openSpool(dir);
  await spool.add(bodies[0]!);
  const first = await spool.oldest();
  // The agent stops before the answer came; the next process sends the same file again.
  const restarted = await openSpool(dir);
  const second = await restarted.oldest();
  assert.equal(second?.name, first?.name);
  assert.equal(batchOf(second!.body), batchOf(first!.body));

  assert.equal((await kit.send(token, [], { body: first!.body })).status, 200);
  assert.equal((await kit.send(token, [], { body: second!.body })).status, 200);
  assert.equal(
    kit.count("SELECT cpu_n AS n FROM host_rollups WHERE res = 'm'"),
    1,
    'the sample counted once',
  );
});

test('the directory is synced after each rename, so the new name survives a power cut', async () => {
  const { dir, remove } = tempDir('mon-spool-');
  try {
    const synced: string[][] = [];
    // What the directory held each time it was synced: the renamed file must be there already.
    const spool = await openSpool(dir, {
      syncDir: async (path) => {
        synced.push(readdirSync(path).sort());
        await syncDirectory(path);
      },
    });
    await spool.add(body('one'));
    assert.equal(synced.length, 1);
    assert.equal(synced[0]!.length, 1);
    assert.match(synced[0]![0]!, /^\d{15}-\d{6}\.json\.gz$/, 'synced after the rename, not before');
    await spool.add(body('two'));
    assert.equal(synced.length, 2);
  } finally {
    remove();
  }
});

test('set aside: out of the spool into rejected/, which keeps only the newest REJECTED_MAX_FILES', async () => {
  const { dir, remove } = tempDir('mon-spool-');
  try {
    let now = 1000;
    const spool = await openSpool(dir, { now: () => now++ });
    for (let i = 0; i < REJECTED_MAX_FILES + 2; i++) await spool.add(body(`b${i}`));
    const names: string[] = [];
    for (let file = await spool.oldest(); file; file = await spool.oldest()) {
      names.push(file.name);
      await spool.setAside(file.name);
    }
    assert.deepEqual(spool.size(), { files: 0, bytes: 0 });
    assert.deepEqual(readdirSync(dir), ['rejected']);
    assert.equal(statSync(join(dir, 'rejected')).mode & 0o777, 0o700);
    assert.deepEqual(readdirSync(join(dir, 'rejected')).sort(), names.slice(2), 'the oldest two went');
    // A restart does not take them back into the spool.
    const again = await openSpool(dir);
    assert.equal(again.size().files, 0);
    assert.equal(await again.oldest(), null);
  } finally {
    remove();
  }
});
