import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import {
  AGENT_PROTOCOL,
  AGENT_TIME_HEADER,
  type AgentFrame,
  exceededLimit,
  type PollAnswer,
  REQUEST_LIMITS,
} from '../protocol/agent.ts';
import { makePki, type TestPki } from '../runners/fixtures/certs.ts';
import { closedPort } from '../runners/fixtures/context.ts';
import { connectProxy } from '../server/http/fixtures/connect-proxy.ts';
import { type Receiver, startReceiver } from '../server/http/fixtures/receiver.ts';
import { createTransport, encodeFrames, failure, proxySupport, retryAfterMs } from './transport.ts';

const token = 'bth_abcdefghijklmnopqrstuvwxyz0123456789_-AB';
const frames: AgentFrame[] = [
  { kind: 'log', lines: [{ ts: 1, level: 'info', text: 'first' }] },
  { kind: 'log', lines: [{ ts: 2, level: 'info', text: 'second' }] },
];

let pki: TestPki;
let receiver: Receiver;
before(async () => {
  pki = makePki();
  receiver = await startReceiver();
});
after(async () => {
  pki.dispose();
  await receiver.close();
});

/** An HTTPS server with `cert` that counts TLS failures and requests, answering 200. */
async function httpsServer(cert: { key: string; cert: string }) {
  const seen = { requests: [] as IncomingMessage[], bodies: [] as Buffer[], tlsErrors: 0 };
  const server = https.createServer(cert, (req, res) => {
    seen.requests.push(req);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.bodies.push(Buffer.concat(chunks));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"stored":2,"skipped":0}');
    });
  });
  server.on('tlsClientError', () => seen.tlsErrors++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return {
    url,
    seen,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

test('a server whose certificate the agent does not trust never receives a request, even with NODE_TLS_REJECT_UNAUTHORIZED=0', async () => {
  const server = await httpsServer(pki.leaf(30));
  const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  const transport = createTransport({ server: server.url, token, ca: null, userAgent: 'test' });
  try {
    const { bodies } = await encodeFrames(frames);
    const result = await transport.postFrames(bodies[0]!);
    assert.equal(result.kind, 'failed');
    assert.match(result.kind === 'failed' ? result.detail : '', /certificate/i);
    const polled = await transport.poll({ assignment: '', version: '1', protocol: 1, capabilities: [] });
    assert.equal(polled.kind, 'failed');
    assert.equal(server.seen.requests.length, 0, 'the handshake failed before any request');
    assert.ok(server.seen.tlsErrors >= 1);
  } finally {
    if (before === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = before;
    transport.close();
    await server.close();
  }
});

test('with MON_CA the server is trusted: frames arrive gzipped with the token as bearer', async () => {
  const server = await httpsServer(pki.leaf(30));
  const transport = createTransport({
    server: server.url,
    token,
    ca: pki.caPem,
    userAgent: 'mon-agent/test',
  });
  try {
    const { bodies } = await encodeFrames(frames);
    assert.deepEqual(await transport.postFrames(bodies[0]!), { kind: 'stored' });
    const [request] = server.seen.requests;
    assert.equal(request?.method, 'POST');
    assert.equal(request?.url, '/agent/v1/frames');
    assert.equal(request?.headers.authorization, `Bearer ${token}`);
    assert.equal(request?.headers['content-encoding'], 'gzip');
    assert.equal(request?.headers['content-type'], 'application/json');
    const sent = JSON.parse(gunzipSync(server.seen.bodies[0]!).toString());
    assert.deepEqual(sent, { batch: sent.batch, frames });
    assert.match(sent.batch, /^[0-9a-z]{8,64}$/, 'the batch is named');
  } finally {
    transport.close();
    await server.close();
  }
});

test('a self-signed certificate is refused even with MON_CA set to another root', async () => {
  const server = await httpsServer(pki.selfSigned());
  const transport = createTransport({ server: server.url, token, ca: pki.caPem, userAgent: 'test' });
  try {
    const { bodies } = await encodeFrames(frames);
    assert.equal((await transport.postFrames(bodies[0]!)).kind, 'failed');
    assert.equal(server.seen.requests.length, 0);
  } finally {
    transport.close();
    await server.close();
  }
});

test("answers: 200 with mon's answer stored; 400/413/422 bad; 401/403 refused; 429/503 busy with Retry-After; others and no answer failed", async () => {
  const transport = createTransport({ server: new URL(receiver.url), token, ca: null, userAgent: 'test' });
  const { bodies } = await encodeFrames(frames);
  const post = () => transport.postFrames(bodies[0]!);
  try {
    receiver.next(
      { status: 200, body: { stored: 2, skipped: 0 } },
      {
        status: 422,
        body: { type: 'about:blank', status: 422, title: 'Unprocessable', detail: 'frames[0].ts: required' },
      },
      { status: 413 },
      { status: 400 },
      { status: 401 },
      { status: 403 },
      { status: 429, headers: { 'retry-after': '7' } },
      { status: 503, headers: { 'retry-after': '2' } },
      { status: 503 },
      { status: 500 },
      { status: 302, headers: { location: 'https://elsewhere.example.com/' } },
      { status: 200, body: '<html>Maintenance</html>', headers: { 'content-type': 'text/html' } },
    );
    assert.deepEqual(await post(), { kind: 'stored' });
    assert.deepEqual(await post(), { kind: 'bad', status: 422, detail: 'frames[0].ts: required' });
    assert.deepEqual(await post(), { kind: 'bad', status: 413, detail: '' });
    assert.deepEqual(await post(), { kind: 'bad', status: 400, detail: '' });
    assert.deepEqual(await post(), { kind: 'refused', status: 401 });
    assert.deepEqual(await post(), { kind: 'refused', status: 403 });
    assert.deepEqual(await post(), { kind: 'busy', status: 429, retryAfterMs: 7000 });
    assert.deepEqual(await post(), { kind: 'busy', status: 503, retryAfterMs: 2000 });
    assert.deepEqual(await post(), { kind: 'busy', status: 503, retryAfterMs: null });
    assert.deepEqual(await post(), { kind: 'failed', detail: 'the server answered 500', status: 500 });
    // A redirect is not followed: the token goes only to MON_SERVER.
    assert.deepEqual(await post(), { kind: 'failed', detail: 'the server answered 302', status: 302 });
    // A proxy's page answered 200 stored nothing.
    assert.deepEqual(await post(), {
      kind: 'failed',
      detail: "the server answered 200 without mon's answer (text/html)",
      status: 200,
    });
    assert.equal(receiver.received.length, 12);
  } finally {
    transport.close();
  }
  const nobody = createTransport({
    server: new URL(`http://127.0.0.1:${await closedPort()}`),
    token,
    ca: null,
    userAgent: 'test',
  });
  try {
    const result = await nobody.postFrames(bodies[0]!);
    assert.equal(result.kind, 'failed');
    assert.match(result.kind === 'failed' ? result.detail : '', /ECONNREFUSED/);
  } finally {
    nobody.close();
  }
});

test('Retry-After in seconds or as a date; absent or unreadable gives null; capped at 15 minutes', () => {
  const now = Date.UTC(2026, 0, 1);
  assert.equal(retryAfterMs('5', now), 5000);
  assert.equal(retryAfterMs(new Date(now + 30_000).toUTCString(), now), 30_000);
  assert.equal(retryAfterMs(new Date(now - 30_000).toUTCString(), now), 0);
  assert.equal(retryAfterMs(undefined, now), null);
  assert.equal(retryAfterMs('soon', now), null);
  assert.equal(retryAfterMs('86400', now), 15 * 60_000);
  assert.deepEqual(failure({ status: 404, text: '' }), {
    kind: 'failed',
    detail: 'the server answered 404',
    status: 404,
  });
});

test("each request carries the agent's clock as it is made, in ms (mon-agent-time)", async () => {
  const transport = createTransport({ server: new URL(receiver.url), token, ca: null, userAgent: 'test' });
  const answer: PollAnswer = {
    protocol: AGENT_PROTOCOL,
    assignment: 'a1',
    host: 'web-1',
    settings: { sampleEveryMs: 15_000 },
    checks: [],
    commands: [],
  };
  try {
    receiver.next({ status: 200, body: { stored: 2, skipped: 0 } }, { status: 200, body: answer });
    const before = Date.now();
    const { bodies } = await encodeFrames(frames);
    assert.deepEqual(await transport.postFrames(bodies[0]!), { kind: 'stored' });
    const polled = await transport.poll({ assignment: '', version: '0.1.0', protocol: 1, capabilities: [] });
    assert.equal(polled.kind, 'answer');
    const after = Date.now();
    const [posted, poll] = receiver.received.slice(-2);
    for (const request of [posted!, poll!]) {
      const sent = request.headers[AGENT_TIME_HEADER];
      assert.match(String(sent), /^\d+$/, `${request.method} sends its clock`);
      assert.ok(Number(sent) >= before && Number(sent) <= after, 'the time the request was made');
    }
  } finally {
    transport.close();
  }
});

test('the poll names the assignment, version, protocol and capabilities, and reads the answer', async () => {
  const server = new URL(`${receiver.url}/mon/`);
  server.pathname = '/mon';
  const transport = createTransport({ server, token, ca: null, userAgent: 'test' });
  const answer: PollAnswer = {
    protocol: AGENT_PROTOCOL,
    assignment: 'a1',
    host: 'web-1',
    settings: { sampleEveryMs: 15_000 },
    checks: [],
    commands: [{ id: 'c1', name: 'disk' }],
  };
  try {
    receiver.next({ status: 200, body: answer }, { status: 200, body: { protocol: 1 } });
    const first = await transport.poll({
      assignment: 'a0',
      version: '0.1.0',
      protocol: 1,
      capabilities: ['ping', 'headers'],
    });
    assert.deepEqual(first, { kind: 'answer', answer, unreadable: [] });
    const request = receiver.received.at(-1)!;
    assert.equal(request.path, '/mon/agent/v1/poll', 'a path prefix of MON_SERVER is kept');
    assert.deepEqual(Object.fromEntries(request.query), {
      assignment: 'a0',
      version: '0.1.0',
      protocol: '1',
      capabilities: 'ping,headers',
    });
    assert.equal(request.headers.authorization, `Bearer ${token}`);
    const second = await transport.poll({
      assignment: 'a1',
      version: '0.1.0',
      protocol: 1,
      capabilities: [],
    });
    assert.deepEqual(second, { kind: 'failed', detail: 'the poll answer is not one this agent reads' });
  } finally {
    transport.close();
  }
});

test('requests share a kept-alive connection', async () => {
  const server = await httpsServer(pki.leaf(30));
  let connections = 0;
  const transport = createTransport({ server: server.url, token, ca: pki.caPem, userAgent: 'test' });
  try {
    const { bodies } = await encodeFrames(frames);
    for (let i = 0; i < 3; i++) assert.deepEqual(await transport.postFrames(bodies[0]!), { kind: 'stored' });
    connections = new Set(server.seen.requests.map((r) => r.socket)).size;
    assert.equal(connections, 1);
  } finally {
    transport.close();
    await server.close();
  }
});

test('a batch too big for one request is split in order; a frame too big alone is left out', async () => {
  const many: AgentFrame[] = Array.from({ length: 200 }, (_, i) => ({
    kind: 'log',
    lines: [{ ts: i, level: 'info', text: `line ${i} ${randomBytes(200).toString('hex')}` }],
  }));
  const { bodies, dropped } = await encodeFrames(many, { maxBytes: 8 * 1024 });
  assert.ok(bodies.length > 1);
  assert.deepEqual(dropped, []);
  for (const body of bodies) assert.ok(body.length <= 8 * 1024);
  const decoded = bodies.flatMap(
    (body) => (JSON.parse(gunzipSync(body).toString()) as { frames: AgentFrame[] }).frames,
  );
  assert.deepEqual(decoded, many);

  const byInflated = await encodeFrames(many, { maxInflated: 4096 });
  assert.ok(byInflated.bodies.every((body) => gunzipSync(body).length <= 4096));
  assert.equal(byInflated.bodies.length > 1, true);

  const huge: AgentFrame = { kind: 'log', lines: [{ ts: 0, level: 'info', text: 'x'.repeat(2000) }] };
  const tooBig = await encodeFrames([frames[0]!, huge], { maxInflated: 1000 });
  assert.deepEqual(tooBig.dropped, [huge]);
  assert.equal(tooBig.bodies.length, 1);
});

test('a batch over what one request may carry (REQUEST_LIMITS) is split too, so the server never refuses it for that', async () => {
  const logs: AgentFrame[] = Array.from({ length: 25 }, (_, f) => ({
    kind: 'log',
    lines: Array.from({ length: 1000 }, (_, i) => ({ ts: f * 1000 + i, level: 'info', text: 'x' })),
  }));
  const runs: AgentFrame[] = Array.from({ length: REQUEST_LIMITS.runs + 1 }, (_, i) => ({
    kind: 'run',
    ts: i,
    id: 'c1',
    status: 'up',
    latencyMs: 1,
    detail: 'ok',
  }));
  const { bodies, dropped } = await encodeFrames([...logs, ...runs]);
  assert.deepEqual(dropped, []);
  const decoded = bodies.map(
    (body) => (JSON.parse(gunzipSync(body).toString()) as { frames: AgentFrame[] }).frames,
  );
  assert.ok(decoded.length >= 3, 'split by log lines and by runs, not by size');
  for (const part of decoded) assert.equal(exceededLimit(part), null);
  assert.deepEqual(decoded.flat(), [...logs, ...runs], 'in order, nothing lost');
});

test('HTTPS_PROXY: the agent tunnels to the server through it (the token inside TLS); NO_PROXY goes around it', async (t) => {
  // The pinned Node (24) has it; an older one makes the agent say at start why it connects directly (main.test.ts).
  assert.ok(await proxySupport(), 'the pinned Node has proxy support for agents');
  const server = await httpsServer(pki.leaf(30));
  const proxy = await connectProxy();
  t.after(async () => {
    await server.close();
    await proxy.close();
  });
  const { bodies } = await encodeFrames(frames);
  const through = createTransport({
    server: server.url,
    token,
    ca: pki.caPem,
    userAgent: 'test',
    proxyEnv: { HTTPS_PROXY: proxy.url },
  });
  try {
    assert.deepEqual(await through.postFrames(bodies[0]!), { kind: 'stored' });
    assert.deepEqual(proxy.targets, [`127.0.0.1:${server.url.port}`]);
    assert.equal(server.seen.requests[0]?.headers.authorization, `Bearer ${token}`);
  } finally {
    through.close();
  }
  const around = createTransport({
    server: server.url,
    token,
    ca: pki.caPem,
    userAgent: 'test',
    proxyEnv: { HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
  });
  try {
    assert.deepEqual(await around.postFrames(bodies[0]!), { kind: 'stored' });
    assert.equal(proxy.targets.length, 1, 'NO_PROXY: straight to the server');
  } finally {
    around.close();
  }
});

test('MON_CA is trusted on top of NODE_EXTRA_CA_CERTS, not instead of it', async (t) => {
  const other = makePki();
  const dir = mkdtempSync(join(tmpdir(), 'mon-ca-'));
  const server = await httpsServer(other.leaf(30));
  t.after(async () => {
    other.dispose();
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  });
  writeFileSync(join(dir, 'extra.pem'), other.caPem);
  // NODE_EXTRA_CA_CERTS is read when Node starts: a process of its own, with MON_CA another root.
  const script = `
    import { createTransport, encodeFrames } from ${JSON.stringify(join(import.meta.dirname, 'transport.ts'))};
    const transport = createTransport({ server: new URL(${JSON.stringify(server.url.href)}), token: ${JSON.stringify(token)}, ca: ${JSON.stringify(pki.caPem)}, userAgent: 'test' });
    const { bodies } = await encodeFrames([]);
    const result = await transport.postFrames(bodies[0] ?? Buffer.from(''));
    transport.close();
    process.stdout.write(JSON.stringify(result));`;
  // Not spawnSync: the server answering is in this process.
  const run = (env: NodeJS.ProcessEnv) =>
    new Promise<{ stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        ['--input-type=module', '-e', script],
        { env, timeout: 20_000 },
        (_e, stdout, stderr) => resolve({ stdout, stderr }),
      ),
    );
  const withExtra = await run({ PATH: process.env.PATH, NODE_EXTRA_CA_CERTS: join(dir, 'extra.pem') });
  const tls = await import('node:tls');
  if ('getCACertificates' in tls)
    assert.deepEqual(JSON.parse(withExtra.stdout), { kind: 'stored' }, withExtra.stderr);
  const without = await run({ PATH: process.env.PATH });
  assert.equal(JSON.parse(without.stdout).kind, 'failed', 'without it, that root is not trusted');
});
