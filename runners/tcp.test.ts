import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { parseHostPort } from '../protocol/targets.ts';
import { checkOf, closedPort, contextOf, listen } from './fixtures/context.ts';
import { tcpRunner } from './tcp.ts';

const server = net.createServer((socket) => socket.end());
let port = 0;
before(async () => {
  port = await listen(server);
});
after(() => server.close());

const run = (target: string, extra: object = {}, ctx = contextOf()) =>
  tcpRunner(checkOf({ kind: 'tcp', target, ...extra }), ctx);

test('parses host:port and [v6]:port', () => {
  assert.deepEqual(parseHostPort('db.internal:5432'), { host: 'db.internal', port: 5432 });
  assert.deepEqual(parseHostPort('[::1]:22'), { host: '::1', port: 22 });
  assert.equal(parseHostPort('::1:22'), null);
  assert.equal(parseHostPort('host:0'), null);
  assert.equal(parseHostPort('host'), null);
});

test('an open port is up with the connect time', async () => {
  const out = await run(`127.0.0.1:${port}`);
  assert.equal(out.status, 'up');
  assert.equal(out.detail, 'connected');
  assert.ok(typeof out.latencyMs === 'number' && out.latencyMs >= 0);
});

test('a closed port is down: connection refused', async () => {
  const out = await run(`127.0.0.1:${await closedPort()}`);
  assert.deepEqual(out, { status: 'down', latencyMs: null, detail: 'connection refused' });
});

test('responseTimeBelowMs applies to the connect time', async () => {
  // Failing limits and their combination are covered in assertions.test.ts: loopback connects are too fast
  // to fail one deterministically here.
  const out = await run(`127.0.0.1:${port}`, { expect: [{ responseTimeBelowMs: 5000 }] });
  assert.deepEqual([out.status, out.detail], ['up', 'connected']);
});

test('an aborted run reports the timeout', async () => {
  const controller = new AbortController();
  controller.abort();
  const out = await run(`127.0.0.1:${port}`, { timeoutMs: 700 }, contextOf({ signal: controller.signal }));
  assert.deepEqual(out, { status: 'down', latencyMs: null, detail: 'timed out after 700 ms' });
});

test('an unknown host is down', async () => {
  const out = await run('no-such-host.invalid:80');
  assert.equal(out.status, 'down');
  assert.match(out.detail, /host not found|lookup failed/);
});
