import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkOf, contextOf } from './fixtures/context.ts';
import { parsePing, pingRunner } from './ping.ts';

const partial = `PING 10.0.0.9 (10.0.0.9) 56(84) bytes of data.
64 bytes from 10.0.0.9: icmp_seq=1 ttl=64 time=0.412 ms
64 bytes from 10.0.0.9: icmp_seq=3 ttl=64 time=0.388 ms

--- 10.0.0.9 ping statistics ---
3 packets transmitted, 2 received, 33.3333% packet loss, time 2031ms
rtt min/avg/max/mdev = 0.388/0.400/0.412/0.012 ms
`;
const none = `PING 10.0.0.8 (10.0.0.8) 56(84) bytes of data.

--- 10.0.0.8 ping statistics ---
3 packets transmitted, 0 received, +3 errors, 100% packet loss, time 2047ms
`;
const busybox = `--- 10.0.0.7 ping statistics ---
3 packets transmitted, 3 packets received, 0% packet loss
round-trip min/avg/max = 0.101/0.250/0.400 ms
`;

test('parses ping summaries', () => {
  assert.deepEqual(parsePing(partial), { transmitted: 3, received: 2, avgMs: 0.4 });
  assert.deepEqual(parsePing(none), { transmitted: 3, received: 0, avgMs: null });
  assert.deepEqual(parsePing(busybox), { transmitted: 3, received: 3, avgMs: 0.25 });
  assert.equal(parsePing('ping: unknown host'), null);
});

test('pinging 127.0.0.1 is up with the mean round trip', async () => {
  const out = await pingRunner(
    checkOf({ kind: 'ping', target: '127.0.0.1', expect: [{ responseTimeBelowMs: 1000 }] }),
    contextOf({ env: { PATH: '/usr/local/bin:/usr/bin:/bin' } }),
  );
  assert.equal(out.status, 'up', out.detail);
  assert.match(out.detail, /^3 of 3 replies, [\d.]+ ms average$/);
  assert.ok(typeof out.latencyMs === 'number' && out.latencyMs < 1000);
});

test('an unresolvable name is down', async () => {
  const out = await pingRunner(
    checkOf({ kind: 'ping', target: 'no-such-host.invalid', timeoutMs: 3000 }),
    contextOf({ env: { PATH: '/usr/local/bin:/usr/bin:/bin' } }),
  );
  assert.equal(out.status, 'down');
  assert.match(out.detail, /host not found|timed out/);
});

test('a missing ping binary is down with a clear detail', async () => {
  const out = await pingRunner(
    checkOf({ kind: 'ping', target: '127.0.0.1' }),
    contextOf({ env: { PATH: '/nonexistent' } }),
  );
  assert.deepEqual(
    [out.status, out.detail],
    ['down', 'ping is not installed on the server (Debian package iputils-ping)'],
  );
  // Run by an agent, the detail says so.
  const agent = await pingRunner(
    checkOf({ kind: 'ping', target: '127.0.0.1' }),
    contextOf({ runBy: 'agent', env: { PATH: '/nonexistent' } }),
  );
  assert.equal(
    agent.detail,
    'ping is not installed where the agent runs (Debian package iputils-ping; Alpine, as in the Docker install: iputils)',
  );
});

test('an aborted run reports the timeout', async () => {
  const controller = new AbortController();
  const pending = pingRunner(
    checkOf({ kind: 'ping', target: '127.0.0.1', timeoutMs: 5000 }),
    contextOf({ signal: controller.signal }),
  );
  setTimeout(() => controller.abort(), 100);
  assert.deepEqual(await pending, { status: 'down', latencyMs: null, detail: 'timed out after 5000 ms' });
});

test('ping without permission names net.ipv4.ping_group_range', async () => {
  // A stand-in ping that fails the way iputils does without an ICMP socket or CAP_NET_RAW.
  const dir = mkdtempSync(join(tmpdir(), 'mon-ping-'));
  try {
    writeFileSync(join(dir, 'ping'), '#!/bin/sh\necho "ping: socket: Operation not permitted" >&2\nexit 2\n');
    chmodSync(join(dir, 'ping'), 0o755);
    const out = await pingRunner(
      checkOf({ kind: 'ping', target: '127.0.0.1' }),
      contextOf({ env: { PATH: dir } }),
    );
    assert.equal(out.status, 'down');
    assert.match(out.detail, /not permitted for the server process.*net\.ipv4\.ping_group_range/);
    const agent = await pingRunner(
      checkOf({ kind: 'ping', target: '127.0.0.1' }),
      contextOf({ runBy: 'agent', env: { PATH: dir } }),
    );
    assert.match(agent.detail, /not permitted for the agent process.*net\.ipv4\.ping_group_range/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
