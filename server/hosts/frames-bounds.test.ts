import assert from 'node:assert/strict';
import { type ClientRequest, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { MAX_FRAMES_BYTES, MAX_INFLATED_FRAMES_BYTES, REQUEST_LIMITS } from '../../protocol/agent.ts';
import { within } from '../testing.ts';
import { container, hello, hostServer, runFrame, sample, T0, unit } from './testkit.ts';

const checkBody = {
  name: 'home',
  service: 'shop',
  kind: 'http',
  target: 'https://home.example.com/',
  from: 'web-1',
};

test('absurd values are skipped frame by frame; the good frames of the batch are stored', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const id = (await kit.inject('POST', '/api/v1/checks', checkBody)).body.id as string;
  const run = (ts: number, over: Record<string, unknown> = {}) => runFrame(id, ts, over);
  const s = (over: Parameters<typeof sample>[1]) => sample(T0 - 60_000, over);
  const absurd = [
    s({ memory: { used: 1e308, total: 1 } }),
    s({ memory: { used: 2, total: 1 } }),
    s({ swap: { used: 5, total: 4 } }),
    s({ load: [-5, -1e308, 1e308] }),
    s({ load: [1, 1, 1e308] }),
    s({ temperatures: [{ sensor: 'cpu', celsius: 1e308 }] }),
    s({ temperatures: [{ sensor: 'cpu', celsius: -1e308 }] }),
    s({ disks: [{ mount: '/', device: '/dev/sda1', fstype: 'ext4', used: 200, size: 100 }] }),
    s({ diskIo: { readBps: 1e308, writeBps: 0 } }),
    s({ containers: [container({ cpu: 1e308 })] }),
    s({ containers: [container({ memory: 1e308 })] }),
    s({ units: [unit({ cpu: 1e308 })] }),
    run(T0 - 60_000, { latencyMs: 1e308 }),
    run(T0 - 60_000, { value: 1e308 }),
    run(T0 - 60_000, { value: -1e308 }),
    hello(T0, { cores: 1e9 }),
  ];
  const good = [hello(T0), sample(T0), run(T0)];
  const res = await kit.send(token, [...absurd, ...good]);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { stored: good.length, skipped: absurd.length });
  assert.equal(kit.count('SELECT count(*) AS n FROM check_runs WHERE check_id = ?', id), 1);
  const rows = kit.db.prepare('SELECT * FROM host_rollups').all() as Record<string, number | null>[];
  assert.equal(rows.length, 4, 'the good sample alone, in its four resolutions');
  for (const row of rows) {
    for (const [column, value] of Object.entries(row)) {
      if (typeof value === 'number')
        assert.ok(Number.isFinite(value) && value < 2 ** 62, `${column}: ${value}`);
    }
  }
  await kit.clock.advance(2 * 3_600_000);
  const host = (await kit.inject('GET', '/api/v1/hosts/web-1?range=30d')).body;
  assert.equal(host.series.memory.filter((v: number | null) => v !== null).length, 1);
  assert.equal(host.agent.cores, 4);
  const metrics = await kit.server.deps.metrics.text();
  assert.match(metrics, new RegExp(`mon_ingest_rejected_total\\{reason="invalid"\\} ${absurd.length}`));
});

test('values at the bounds are taken: used equal to total, a hot sensor, a busy 64-core container', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const res = await kit.send(token, [
    sample(T0, {
      memory: { used: 4, total: 4 },
      load: [0, 0, 0],
      temperatures: [
        { sensor: 'nvme', celsius: 105 },
        { sensor: 'outside', celsius: -40 },
      ],
      disks: [{ mount: '/', device: '/dev/sda1', fstype: 'ext4', used: 100, size: 100 }],
      containers: [container({ cpu: 6400 })],
    }),
  ]);
  assert.deepEqual(res.body, { stored: 1, skipped: 0 });
});

test('a request carrying more than REQUEST_LIMITS answers 413 naming what, before any frame is applied', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const log = (lines: number) => ({
    kind: 'log',
    lines: Array.from({ length: lines }, (_, i) => ({
      ts: T0 - 1000 + (i % 1000),
      level: 'info',
      text: 'x',
    })),
  });
  const declare = (ts: number) => ({ kind: 'declare', ts, checks: [], problems: [] });
  const run = (ts: number) => ({ kind: 'run', ts, id: 'c1', status: 'up', latencyMs: 1, detail: 'ok' });
  const cases: [unknown[], RegExp][] = [
    [[...Array.from({ length: 10 }, () => log(1000)), log(1)], /at most 10,000 log lines/],
    [
      Array.from({ length: REQUEST_LIMITS.declares + 1 }, (_, i) => declare(T0 - i)),
      /at most 4 declare frames/,
    ],
    [Array.from({ length: REQUEST_LIMITS.runs + 1 }, (_, i) => run(T0 - i)), /at most 5,000 run frames/],
    [
      Array.from({ length: REQUEST_LIMITS.samples + 1 }, (_, i) => sample(T0 - i)),
      /at most 400 sample frames/,
    ],
    [
      Array.from({ length: 3 }, (_, i) =>
        sample(T0 - i, { units: Array.from({ length: 5001 }, (_, u) => unit({ name: `u${u}.service` })) }),
      ),
      /at most 15,000 containers and units over all samples/,
    ],
  ];
  for (const [frames, detail] of cases) {
    const res = await kit.send(token, [sample(T0), ...frames]);
    assert.equal(res.status, 413, String(detail));
    assert.match(res.body.detail, detail);
  }
  assert.equal(kit.count('SELECT count(*) AS n FROM host_rollups'), 0, 'nothing of them stored');
  assert.equal(kit.count('SELECT count(*) AS n FROM agent_logs'), 0);

  // At the limits: taken.
  const full = [...Array.from({ length: 10 }, () => log(1000)), declare(T0), sample(T0)];
  assert.deepEqual((await kit.send(token, full)).body, { stored: 12, skipped: 0 });
  assert.equal(kit.count('SELECT count(*) AS n FROM agent_logs'), 10_000);
});

test('frames nested deeper than 32 levels answer 400 before they are parsed, and /healthz answers meanwhile', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  await kit.server.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = kit.server.app.server.address() as AddressInfo;
  // 31 KB of gzip that inflates to 32 MiB of brackets: JSON.parse alone held the event loop for 19 s.
  const n = (MAX_INFLATED_FRAMES_BYTES - '{"frames":[]}'.length) / 2;
  const bomb = gzipSync(`{"frames":[${'['.repeat(n)}${']'.repeat(n)}]}`, { level: 9 });
  assert.ok(bomb.length < 40_000, `${bomb.length} bytes`);
  const post = () =>
    fetch(`http://127.0.0.1:${port}/agent/v1/frames`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body: bomb,
    });
  // One at a time: two of 32 MiB at once may not fit the 64 MiB in flight (503, as designed).
  const [first, health] = await Promise.all([post(), fetch(`http://127.0.0.1:${port}/healthz`)]);
  const second = await post();
  for (const res of [first, second]) {
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    assert.equal(
      ((await res.json()) as { detail: string }).detail,
      'the body nests arrays and objects deeper than 32 levels',
    );
  }
  assert.equal(health.status, 200);
  assert.equal(await health.text(), 'ok');
  assert.equal(kit.server.hosts.decodingBytes(), 0, 'the memory is given back');

  // Brackets and quotes inside strings are text: a log line full of them is stored.
  const text = `"[{\\${'['.repeat(100)}\\`;
  const res = await kit.send(token, [{ kind: 'log', lines: [{ ts: T0, level: 'info', text }] }]);
  assert.deepEqual(res.body, { stored: 1, skipped: 0 });
  assert.equal(kit.count('SELECT count(*) AS n FROM agent_logs WHERE text = ?', text), 1);
});

test("one host's inflated JSON is paced: 128 MiB at once, then 1 MiB a second; beyond, 429 with Retry-After", async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const other = await kit.addHost('web-2');
  // 30 MiB of JSON each, mostly white space: a batch of a host that shapes them to cost their parse.
  const padded = (ts: number) =>
    gzipSync(`${JSON.stringify({ frames: [sample(ts)] })}${' '.repeat(30 * 1024 * 1024)}`);
  const send = (who: string, ts: number) => kit.send(who, [], { body: padded(ts) });
  for (let i = 0; i < 4; i++) {
    assert.deepEqual((await send(token, T0 + i)).body, { stored: 1, skipped: 0 }, `batch ${i}`);
  }
  const refused = await send(token, T0 + 4);
  assert.equal(refused.status, 429);
  // A little less than 8 MiB was left of 128: 22 MiB and the samples' JSON more, at 1 MiB a second.
  assert.equal(refused.headers['retry-after'], '23');
  assert.equal(refused.body.detail, 'web-1 sends frames faster than 1 MiB of JSON a second');
  assert.equal((await send(other, T0)).status, 200, 'another host has its own pace');
  await kit.clock.advance(23_000);
  assert.equal((await send(token, T0 + 5)).status, 200);
});

/** A POST of frames over a real socket that sends its headers and `sent` bytes of its body, then waits. */
function openUpload(port: number, token: string, length: number | null, sent: number) {
  let req: ClientRequest;
  const answer = new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
    req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/agent/v1/frames',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...(length === null ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(length) }),
        },
      },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] });
      },
    );
    req.on('error', (error) => reject(error));
    req.flushHeaders();
    if (sent > 0) req.write(Buffer.alloc(sent, 0x20));
  });
  answer.catch(() => {});
  return { answer, abort: () => req.destroy(), finish: (body: Buffer) => req.end(body) };
}

test('the memory for a body is taken before it is read: beyond the budget, 503 with Retry-After before a byte of it', async (t) => {
  const MiB = 1024 * 1024;
  const kit = await hostServer({ hosts: { maxDecodingBytes: 10 * MiB } });
  t.after(() => kit.server.dispose());
  const tokens = await Promise.all(['web-1', 'web-2', 'web-3'].map((h) => kit.addHost(h)));
  await kit.server.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = kit.server.app.server.address() as AddressInfo;

  // Two uploads announce 4 MiB each and send a little of it: 8 of the 10 MiB are taken.
  const held = [
    openUpload(port, tokens[0]!, MAX_FRAMES_BYTES, 1024),
    openUpload(port, tokens[1]!, MAX_FRAMES_BYTES, 1024),
  ];
  await within(
    2_000,
    'both bodies are reserved',
    () => kit.server.hosts.decodingBytes() === 2 * MAX_FRAMES_BYTES,
  );
  // Many more at once, none sending a byte of its body: each is refused on its headers alone.
  const many = Array.from({ length: 20 }, (_, i) => openUpload(port, tokens[2]!, i % 2 ? 3 * MiB : null, 0));
  const refused = await Promise.all(many.map((upload) => upload.answer));
  for (const upload of many) upload.abort();
  for (const answer of refused) assert.deepEqual(answer, { status: 503, retryAfter: '2' });
  assert.equal(kit.server.hosts.decodingBytes(), 2 * MAX_FRAMES_BYTES, 'the refused took nothing');
  // A small body still fits in what is left, and is stored.
  const small = Buffer.from(JSON.stringify({ frames: [sample(T0)] }));
  const fits = openUpload(port, tokens[2]!, small.length, 0);
  await within(
    2_000,
    'the small body is reserved',
    () => kit.server.hosts.decodingBytes() > 2 * MAX_FRAMES_BYTES,
  );
  fits.finish(small);
  assert.equal((await fits.answer).status, 200);
  await within(
    2_000,
    'its memory is given back',
    () => kit.server.hosts.decodingBytes() === 2 * MAX_FRAMES_BYTES,
  );
  // Uploads cut off by the client give theirs back too.
  for (const upload of held) upload.abort();
  await within(2_000, 'nothing held', () => kit.server.hosts.decodingBytes() === 0);
  assert.match(await kit.server.deps.metrics.text(), /mon_ingest_rejected_total\{reason="queue_full"\} 20/);
});
