import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { newHostToken, putHostToken } from '../server/hosts/store.ts';
import { readerServer } from './reader-server.ts';

/**
 * What one request of frames costs the single writer, and what another host's empty request waits
 * meanwhile. Decoding and the writer job run on the event loop, so its longest stall while the heavy
 * body is under way is what another host's batch waits at worst. Run with
 * `node_modules/.bin/node bench/frames-request.ts`; prints per body its answer, its time and that stall.
 */
const dir = await mkdtemp(join(tmpdir(), 'mon-frames-request-'));
const server = await readerServer(dir);
const tokens: string[] = [];
await server.deps.store.writer.run((db) => {
  for (const name of ['heavy', 'other']) {
    const { token, hash } = newHostToken();
    tokens.push(token);
    putHostToken(db, name, hash, Date.now(), 'api');
  }
});
await server.app.listen({ host: '127.0.0.1', port: 0 });
const address = server.app.server.address();
const base = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : '';
const [heavy, otherToken] = tokens as [string, string];

const post = async (token: string, frames: unknown[]) => {
  const started = performance.now();
  const res = await fetch(`${base}/agent/v1/frames`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    },
    body: gzipSync(JSON.stringify({ frames })),
  });
  const text = await res.text();
  return { status: res.status, text: text.slice(0, 120), ms: Math.round(performance.now() - started) };
};

const now = Date.now();
const logFrames = (frames: number, lines: number) =>
  Array.from({ length: frames }, (_, f) => ({
    kind: 'log',
    lines: Array.from({ length: lines }, () => ({
      ts: now - 60_000 + f,
      level: 'info',
      text: 'x',
    })),
  }));
const declareFrames = (frames: number, checks: number) =>
  Array.from({ length: frames }, (_, f) => ({
    kind: 'declare',
    ts: now - 60_000 + f,
    checks: Array.from({ length: checks }, (_, i) => ({
      name: `check-${f}-${i}`,
      service: 'svc',
      command: 'true',
      everyMs: 60_000,
      timeoutMs: 5_000,
    })),
    problems: [],
  }));

const unitSamples = (samples: number, units: number) =>
  Array.from({ length: samples }, (_, s) => ({
    kind: 'sample',
    ts: now - 60_000 + s * 15_000,
    cpu: 10,
    memory: { used: 1, total: 2 },
    swap: null,
    disks: [],
    diskIo: null,
    net: null,
    load: [0, 0, 0],
    temperatures: [],
    containers: null,
    units: Array.from({ length: units }, (_, u) => ({
      name: `u${u}.service`,
      state: 'active',
      subState: 'running',
      restarts: 0,
      cpu: (s + u) % 7,
      memory: 1e6 * (1 + ((s + u) % 5)),
    })),
  }));

const cases: [string, unknown[]][] = [
  ['700 log frames x 1,000 lines', logFrames(700, 1000)],
  ['10 log frames x 1,000 lines (the most)', logFrames(10, 1000)],
  ['60 declare frames x 1,000 checks', declareFrames(60, 1000)],
  ['4 declare frames x 1,000 checks (the most)', declareFrames(4, 1000)],
  ['3 samples x 5,000 units (the most)', unitSamples(3, 5000)],
  ['3 samples x 5,001 units', unitSamples(3, 5001)],
];
for (const [name, frames] of cases) {
  // The writer and the decoding run on the event loop: its longest stall is what any other request
  // (another host's batch, an API read, a heartbeat ping) waits at worst meanwhile.
  const stalls = monitorEventLoopDelay({ resolution: 5 });
  stalls.enable();
  const answer = await post(heavy, frames);
  stalls.disable();
  const other = await post(otherToken, []);
  console.log(
    `${name}: ${answer.status} ${answer.text} in ${answer.ms} ms; event loop stalled up to ${Math.round(stalls.max / 1e6)} ms; another host's empty POST after: ${other.status}`,
  );
}
await server.close();
rmSync(dir, { recursive: true, force: true });
