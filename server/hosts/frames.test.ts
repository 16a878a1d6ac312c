import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { createGzip, gzipSync } from 'node:zlib';
import { MAX_FRAMES_BYTES } from '../../protocol/agent.ts';
import { memoryLog, within } from '../testing.ts';
import { hello, hostServer, sample, T0, unit } from './testkit.ts';

const rollups = 'SELECT count(*) AS n FROM host_rollups';

test('frames need the host token: missing, unknown or replaced answers 401, logged without the token', async (t) => {
  const memory = memoryLog();
  const kit = await hostServer({ log: memory.log });
  t.after(() => kit.server.dispose());
  const old = await kit.addHost('web-1');

  const missing = await kit.send(null, [sample(T0)]);
  assert.equal(missing.status, 401);
  assert.match(String(missing.headers['content-type']), /application\/problem\+json/);
  const guessed = 'bth_not-a-token-of-any-host';
  assert.equal((await kit.send(guessed, [sample(T0)])).status, 401);
  assert.equal((await kit.send('mon_an-api-token', [sample(T0)])).status, 401);
  assert.equal((await kit.send(old, [sample(T0)])).status, 200);

  const renewed = await kit.addHost('web-1');
  const refused = await kit.send(old, [sample(T0 + 15_000)]);
  assert.equal(refused.status, 401, 'a replaced token stops at once');
  assert.equal(refused.body.detail, 'the host token is not valid');
  assert.equal((await kit.send(renewed, [sample(T0 + 15_000)])).status, 200);
  assert.equal((await kit.poll(old)).status, 401, 'the poll takes the same token');

  // Every token that names no host is a security event (the poll too), counted per address: a line
  // at the first, then the count of those that followed within the minute.
  const rejected = () => memory.lines().filter((l) => l.security === 'host.rejected');
  assert.deepEqual(
    rejected().map((l) => [l.route, l.count]),
    [['/agent/v1/frames', 1]],
  );
  await kit.clock.advance(60_000);
  assert.deepEqual(
    rejected().map((l) => [l.route, l.count, l.address]),
    [
      ['/agent/v1/frames', 1, '127.0.0.1'],
      ['/agent/v1/poll', 3, '127.0.0.1'],
    ],
  );
  for (const token of [old, renewed, guessed])
    assert.ok(!memory.text().includes(token), 'no token in the log');
});

test('gzip and identity bodies are both taken; other encodings and types are refused', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  assert.deepEqual((await kit.send(token, [hello(T0), sample(T0)])).body, { stored: 2, skipped: 0 });
  assert.deepEqual((await kit.send(token, [sample(T0 + 15_000)], { gzip: false })).body, {
    stored: 1,
    skipped: 0,
  });
  assert.equal(kit.count("SELECT cpu_n AS n FROM host_rollups WHERE res = 'm'"), 2, 'both samples stored');
  const br = await kit.send(token, [sample(T0 + 30_000)], { headers: { 'content-encoding': 'br' } });
  assert.equal(br.status, 415);
  assert.match(br.body.detail, /gzip or identity/);
  const text = await kit.send(token, [sample(T0 + 30_000)], { headers: { 'content-type': 'text/plain' } });
  assert.equal(text.status, 415);
  const broken = await kit.send(token, [], { body: Buffer.from('not gzip at all') });
  assert.equal(broken.status, 400);
  assert.equal(broken.body.detail, 'the body is not valid gzip');
  const notJson = await kit.send(token, [], { gzip: false, body: Buffer.from('{"frames": [') });
  assert.equal(notJson.status, 400);
  assert.equal(notJson.body.detail, 'the body is not valid JSON');
});

test('a body over 4 MiB answers 413; one that inflates past the cap answers 413 without inflating it all', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const big = await kit.send(token, [], { gzip: false, body: Buffer.alloc(MAX_FRAMES_BYTES + 1, 0x20) });
  assert.equal(big.status, 413);

  // 256 MiB of JSON whitespace around one sample: about 256 KiB gzipped, a valid body without the cap.
  const bomb = await gzipStream(function* () {
    yield Buffer.from('{"frames": [');
    const spaces = Buffer.alloc(1024 * 1024, 0x20);
    for (let i = 0; i < 256; i++) yield spaces;
    yield Buffer.from(`${JSON.stringify(sample(T0))}]}`);
  });
  assert.ok(bomb.length < MAX_FRAMES_BYTES);
  const before = process.memoryUsage().arrayBuffers;
  const inflated = await kit.send(token, [], { body: bomb });
  assert.equal(inflated.status, 413);
  assert.match(inflated.body.detail, /inflate to more than 32 MiB/);
  assert.ok(process.memoryUsage().arrayBuffers - before < 128 * 1024 * 1024, 'never inflated whole');
  assert.equal(kit.count(rollups), 0);
});

test('a frame of a known kind that does not parse is skipped alone, logged with its field; a body without frames is refused', async (t) => {
  const memory = memoryLog();
  const kit = await hostServer({ log: memory.log });
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const bad = await kit.send(token, [hello(T0), sample(T0), { ...sample(T0 + 15_000), cpu: 'busy' }]);
  assert.equal(bad.status, 200);
  assert.deepEqual(bad.body, { stored: 2, skipped: 1 });
  assert.equal(kit.count(rollups), 4, 'the good sample in its four resolutions');
  const logged = memory.lines().filter((l) => String(l.message).startsWith('agent frames skipped'));
  assert.equal(logged.length, 1);
  assert.match(String(logged[0]?.message), /frames\[2\]\.cpu: /);
  assert.equal(logged[0]?.host, 'web-1');
  const noKind = await kit.send(token, [sample(T0), { ts: T0 }]);
  assert.equal(noKind.status, 400);
  assert.match(noKind.body.detail, /^frames\[1\]\.kind: /);
  const metrics = await kit.server.deps.metrics.text();
  assert.match(metrics, /mon_ingest_rejected_total\{reason="invalid"\} 2/, 'the frame and the body');
});

test('a frame of an unknown kind is counted and skipped, never an error', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const res = await kit.send(token, [{ kind: 'gpu', ts: T0, load: 3 }, sample(T0)]);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { stored: 1, skipped: 1 });
  const metrics = await kit.server.deps.metrics.text();
  assert.match(metrics, /mon_agent_unknown_frames_total 1/);
  assert.match(metrics, /mon_ingest_accepted_total\{endpoint="agent"\} 1/);
});

test('200 comes only once the frames and what they caused are committed', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  assert.equal((await kit.send(token, [sample(T0)])).status, 200);
  // A silent host: its next frame ends the silence, an event a subscriber handles in the same job.
  await kit.server.deps.store.writer.run((db) =>
    db.prepare('UPDATE hosts SET silent_since = ? WHERE name = ?').run(T0 + 60_000, 'web-1'),
  );
  let refuse = true;
  kit.server.deps.events.subscribe((_db, events) => {
    if (refuse && events.some((e) => e.type === 'host.alert'))
      throw new Error('the incident could not be closed');
  });
  const failed = await kit.send(token, [sample(T0 + 90_000)]);
  assert.equal(failed.status, 500, 'frames whose consequences could not be stored are not acknowledged');
  assert.equal(
    kit.count(`${rollups} WHERE res = 'm' AND bucket = ?`, T0 + 60_000),
    0,
    'nothing of it stored',
  );
  assert.equal(kit.count('SELECT count(*) AS n FROM hosts WHERE silent_since IS NOT NULL'), 1);
  refuse = false;
  assert.equal((await kit.send(token, [sample(T0 + 90_000)])).status, 200);
  assert.equal(kit.count(`${rollups} WHERE res = 'm' AND bucket = ?`, T0 + 60_000), 1, 'there when answered');
  assert.equal(kit.count('SELECT count(*) AS n FROM hosts WHERE silent_since IS NOT NULL'), 0);
});

test('frames while another process holds the database lock: 503 with Retry-After, then stored', async (t) => {
  const kit = await hostServer({ store: { maxWaitMs: 300 } });
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const other = new DatabaseSync(join(kit.server.dataDir, 'mon.db'));
  t.after(() => other.close());
  other.exec('BEGIN IMMEDIATE');
  const busy = await kit.send(token, [sample(T0)]);
  assert.equal(busy.status, 503);
  assert.ok(Number(busy.headers['retry-after']) >= 1);
  other.exec('ROLLBACK');
  assert.equal(kit.count(rollups), 0);
  assert.equal((await kit.send(token, [sample(T0)])).status, 200);
  assert.equal(kit.count(rollups), 4);
});

test('an agent back from an hour away sends its 240 batches back to back without a 429; a flood beyond gets 429', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const other = await kit.addHost('web-2');
  // What the agent kept through the hour: a batch per sample, sent oldest first as fast as answered.
  const hourAgo = T0 - 3_600_000;
  const statuses: number[] = [];
  for (let i = 0; i < 240; i++) statuses.push((await kit.send(token, [sample(hourAgo + i * 15_000)])).status);
  assert.deepEqual(statuses, new Array(240).fill(200));
  assert.equal(kit.count("SELECT sum(cpu_n) AS n FROM host_rollups WHERE res = 'm'"), 240, 'none lost');

  for (let i = 0; i < 60; i++) assert.equal((await kit.send(token, [sample(T0 + i)])).status, 200);
  const limited = await kit.send(token, [sample(T0 + 100)]);
  assert.equal(limited.status, 429);
  assert.equal(limited.headers['retry-after'], '1');
  assert.equal((await kit.send(other, [sample(T0)])).status, 200, 'other hosts are not limited');
  await kit.clock.advance(1_000);
  assert.equal((await kit.send(token, [sample(T0 + 1_000)])).status, 200, 'one a second after the burst');
  assert.equal((await kit.send(token, [sample(T0 + 1_001)])).status, 429);
  assert.match(await kit.server.deps.metrics.text(), /mon_ingest_rejected_total\{reason="rate_limited"\} 2/);
});

test('a full queue refuses a batch before inflating it: 503 with Retry-After', async (t) => {
  const kit = await hostServer({ store: { maxWaitMs: 5_000 }, hosts: { maxWaitingBatches: 2 } });
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const other = new DatabaseSync(join(kit.server.dataDir, 'mon.db'));
  t.after(() => other.close());
  other.exec('BEGIN IMMEDIATE');
  const waiting = [kit.send(token, [sample(T0)]), kit.send(token, [sample(T0 + 15_000)])];
  await within(2_000, 'two batches wait for storage', () => kit.server.hosts.framesWaiting() === 2);
  // Not gzip at all: inflating it would answer 400.
  const full = await kit.send(token, [], { body: Buffer.from('not gzip at all') });
  assert.equal(full.status, 503);
  assert.equal(full.headers['retry-after'], '1');
  assert.match(await kit.server.deps.metrics.text(), /mon_ingest_rejected_total\{reason="queue_full"\} 1/);
  other.exec('ROLLBACK');
  assert.deepEqual(
    (await Promise.all(waiting)).map((r) => r.status),
    [200, 200],
  );
});

test('frames in flight across requests are capped in memory: a batch beyond the cap waits its turn with 503', async (t) => {
  const kit = await hostServer({ store: { maxWaitMs: 5_000 }, hosts: { maxDecodingBytes: 64 * 1024 } });
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  // About 40 KiB of JSON each.
  const units = (ts: number) =>
    sample(ts, { units: Array.from({ length: 370 }, (_, i) => unit({ name: `u${i}.service` })) });
  assert.ok(JSON.stringify(units(T0)).length > 36 * 1024);
  const other = new DatabaseSync(join(kit.server.dataDir, 'mon.db'));
  t.after(() => other.close());
  other.exec('BEGIN IMMEDIATE');
  const first = kit.send(token, [units(T0)]);
  await within(2_000, 'the first batch waits for storage', () => kit.server.hosts.framesWaiting() === 1);
  const second = await kit.send(token, [units(T0 + 15_000)]);
  assert.equal(second.status, 503, 'the first holds its memory until it is answered');
  assert.equal(second.headers['retry-after'], '2');
  assert.match(second.body.detail, /many frames at once/);
  const small = kit.send(token, [sample(T0 + 30_000)]);
  await within(2_000, 'a small batch still fits', () => kit.server.hosts.framesWaiting() === 2);
  other.exec('ROLLBACK');
  assert.equal((await first).status, 200);
  assert.equal((await small).status, 200);
  assert.equal((await kit.send(token, [units(T0 + 15_000)])).status, 200, 'taken once the first is stored');
  assert.match(await kit.server.deps.metrics.text(), /mon_ingest_rejected_total\{reason="queue_full"\} 1/);
});

test('over a real socket: a gzip body with the token is stored', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  await kit.server.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = kit.server.app.server.address() as AddressInfo;
  const body = gzipSync(JSON.stringify({ frames: [hello(T0), sample(T0)] }));
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/agent/v1/frames',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'content-length': String(body.length),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  assert.equal(answer.status, 200);
  assert.deepEqual(JSON.parse(answer.text), { stored: 2, skipped: 0 });
  assert.equal(kit.count('SELECT count(*) AS n FROM hosts WHERE agent IS NOT NULL'), 1);
});

/** Gzips what `chunks` yields, a chunk at a time (never the whole input in memory). */
function gzipStream(chunks: () => Generator<Buffer>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const gz = createGzip({ level: 1 });
    const out: Buffer[] = [];
    gz.on('data', (b: Buffer) => out.push(b));
    gz.on('end', () => resolve(Buffer.concat(out)));
    gz.on('error', reject);
    const it = chunks();
    const pump = () => {
      for (let next = it.next(); !next.done; next = it.next()) {
        if (!gz.write(next.value)) {
          gz.once('drain', pump);
          return;
        }
      }
      gz.end();
    };
    pump();
  });
}
