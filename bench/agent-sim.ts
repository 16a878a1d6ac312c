import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import type { ContainerSample, PollAnswer, SampleFrame, UnitSample } from '../protocol/agent.ts';
import { AGENT_PROTOCOL, SAMPLE_EVERY_MS } from '../protocol/agent.ts';

/**
 * Simulated agents for the hosts benchmark, in their own process: each posts one gzipped batch (a
 * sample with 5 containers and 10 units, and a log line) every 15 s, spread evenly over the interval,
 * and keeps one long poll open, as the real agent does. The first `ciCount` are CI runners: each
 * sample also lists the job containers of the last 5 minutes (2 new ones, named anew, a sample) and a
 * transient unit per sample living a minute. Reports what the server answered, the CI runners apart.
 *
 * argv: base URL, tokens (comma list), duration in ms, CI runners among them.
 */
const [base, tokenList, durationText, ciText] = process.argv.slice(2);
const tokens = tokenList!.split(',');
const duration = Number(durationText);
const ciCount = Number(ciText ?? 0);
const url = new URL(base!);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

const containers = (i: number, ts: number): ContainerSample[] =>
  Array.from({ length: 5 }, (_, c) => ({
    id: `${i}-${c}`.padEnd(64, '0'),
    name: `app-${c}`,
    image: `registry.example/app-${c}:1.0`,
    imageId: `sha256:${'ab'.repeat(32)}`,
    state: 'running',
    health: c === 0 ? 'healthy' : null,
    restarts: 0,
    exitCode: 0,
    oomKilled: false,
    startedAt: ts - 86_400_000,
    finishedAt: null,
    cpu: 1 + ((i + c) % 7),
    memory: (50 + c * 10) * 1024 * 1024,
    labels: {},
  }));
const units = (i: number): UnitSample[] =>
  Array.from({ length: 10 }, (_, u) => ({
    name: `unit-${u}.service`,
    state: 'active',
    subState: 'running',
    restarts: 0,
    cpu: (i + u) % 3,
    memory: 20 * 1024 * 1024,
  }));

/** A CI runner's jobs: containers living 20 samples, units 4, by the sample they started at. */
const jobs = new Map<
  number,
  { n: number; containers: { name: string; at: number }[]; units: { name: string; at: number }[] }
>();

function ciItems(i: number, ts: number): { containers: ContainerSample[]; units: UnitSample[] } {
  const own = jobs.get(i) ?? { n: 0, containers: [], units: [] };
  jobs.set(i, own);
  const n = own.n++;
  const fresh = () => randomUUID().slice(0, 8);
  own.containers = [
    ...own.containers.filter((c) => n - c.at < 20),
    ...[0, 1].map(() => ({ name: `runner-${fresh()}-build`, at: n })),
  ];
  own.units = [...own.units.filter((u) => n - u.at < 4), { name: `run-r${fresh()}.service`, at: n }];
  return {
    containers: own.containers.map((c) => ({
      ...containers(i, ts)[0]!,
      id: `${c.name}`.padEnd(64, '0'),
      name: c.name,
      image: 'registry.example/ci/job:latest',
      health: null,
      startedAt: ts,
      cpu: 90,
      labels: { 'com.docker.compose.project': c.name },
    })),
    units: own.units.map((u) => ({ ...units(i)[0]!, name: u.name, cpu: 90 })),
  };
}

function sample(i: number, ts: number): SampleFrame {
  return {
    kind: 'sample',
    ts,
    cpu: 10 + (i % 50),
    memory: { used: 2e9 + (i % 100) * 1e7, total: 8e9 },
    swap: { used: 1e8, total: 2e9 },
    disks: [{ mount: '/', device: '/dev/sda1', fstype: 'ext4', used: 4e10, size: 1e11 }],
    diskIo: { readBps: 1e5, writeBps: 2e5 },
    net: { rxBps: 1e6, txBps: 5e5 },
    load: [0.5, 0.4, 0.3],
    temperatures: [{ sensor: 'coretemp Package id 0', celsius: 45 }],
    containers: containers(i, ts),
    units: units(i),
  };
}

function agentSample(i: number, ts: number): SampleFrame {
  const base = sample(i, ts);
  if (i >= ciCount) return base;
  const ci = ciItems(i, ts);
  return {
    ...base,
    containers: [...base.containers!, ...ci.containers],
    units: [...base.units!, ...ci.units],
  };
}

type Result = { status: number; ms: number };

function request(method: string, path: string, token: string, body?: Buffer): Promise<Result> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { 'content-type': 'application/json', 'content-encoding': 'gzip' } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end(body);
  });
}

const frameResults: Result[] = [];
const ciResults: Result[] = [];
const polls = { answered: 0, failed: 0 };
let stopping = false;

async function pollLoop(token: string): Promise<void> {
  let assignment = '';
  while (!stopping) {
    const path = `/agent/v1/poll?assignment=${encodeURIComponent(assignment)}&version=0.1.0&protocol=${AGENT_PROTOCOL}&capabilities=ping,headers`;
    const answer = await new Promise<PollAnswer | null>((resolve) => {
      const req = http.request(
        { host: url.hostname, port: url.port, path, agent, headers: { authorization: `Bearer ${token}` } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            text += c;
          });
          res.on('end', () => {
            try {
              resolve(res.statusCode === 200 ? (JSON.parse(text) as PollAnswer) : null);
            } catch {
              resolve(null);
            }
          });
        },
      );
      req.on('error', () => resolve(null));
      req.end();
    });
    if (answer) {
      polls.answered++;
      assignment = answer.assignment;
    } else {
      polls.failed++;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

const began = Date.now();
for (const [i, token] of tokens.entries()) {
  void pollLoop(token);
  const offset = (i / tokens.length) * SAMPLE_EVERY_MS;
  const send = async () => {
    if (stopping) return;
    const ts = Date.now();
    const body = gzipSync(
      JSON.stringify({
        batch: randomUUID(),
        frames: [agentSample(i, ts), { kind: 'log', lines: [{ ts, level: 'info', text: `sampled ${ts}` }] }],
      }),
    );
    (i < ciCount ? ciResults : frameResults).push(await request('POST', '/agent/v1/frames', token, body));
  };
  setTimeout(() => {
    void send();
    const timer = setInterval(() => void send(), SAMPLE_EVERY_MS);
    setTimeout(() => clearInterval(timer), duration - offset).unref();
  }, offset);
}

setTimeout(() => {
  stopping = true;
  const summary = (results: Result[]) => {
    const ok = results.filter((r) => r.status === 200);
    const statuses: Record<string, number> = {};
    for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    const ms = ok.map((r) => r.ms).sort((a, b) => a - b);
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? Number.NaN;
    return { sent: results.length, stored: ok.length, statuses, p50: at(0.5), p99: at(0.99) };
  };
  process.send?.({
    ...summary([...frameResults, ...ciResults]),
    ci: summary(ciResults),
    seconds: (Date.now() - began) / 1000,
    polls,
  });
  setTimeout(() => process.exit(0), 200);
}, duration + 2000);
