import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { startFakeHost } from '../agent/fixtures/fake-host.ts';
import { startAgentProcess } from '../agent/fixtures/stand-in-server.ts';
import {
  AGENT_PROTOCOL,
  AGENT_SILENT_AFTER_MS,
  type AgentFrame,
  type SampleFrame,
} from '../protocol/agent.ts';
import type { AddedHost, HostRead } from '../protocol/hosts.ts';
import type { IncidentsList } from '../protocol/incidents.ts';
import type { Principal } from '../server/auth/access.ts';
import { FakeClock } from '../server/clock.ts';
import { AGENT_NODE_FLAGS } from '../server/hosts/install.ts';
import { startReceiver } from '../server/http/fixtures/receiver.ts';
import { int, mapper, nullable, one, scalar, text } from '../server/store/rows.ts';
import { createTestServer, tempDir, within } from '../server/testing.ts';

/**
 * The host agent end to end, with real processes: the server in this process (on a fake clock, on
 * loopback), the real agent process (`node agent/main.ts`) on a fake host (the fixture /proc and /sys
 * tree, the Docker Engine API double, the fixture systemctl), talking through a TCP proxy the test
 * cuts and restores; the agent is stopped while cut off and started again once the way is back. The
 * server tells the agent to sample every second (a test-only server option) so that nothing waits 15 s.
 */

const repo = join(import.meta.dirname, '..');
const admin: Principal = { kind: 'token', tokenId: 'e2e', scope: 'write', label: 'e2e' };

const hostRow = mapper({ latest: nullable(text), silentSince: nullable(int) });
const rollupRow = mapper({ samples: int, cpu: int, cpuMax: nullable(int) });
const resolvedRow = mapper({ resolvedAt: nullable(int) });

test('an agent connects: its host gets data and runs its check; cut off, it spools, goes silent (checks unknown, an incident); stopped and started again, it sends what it kept and the incident resolves', async () => {
  const clock = new FakeClock(Date.now());
  const server = await createTestServer({
    clock,
    hosts: { sampleEveryMs: 1000 },
    authenticate: async () => admin,
  });
  const fakeHost = await startFakeHost({ containers: 3, units: 10 });
  const target = await startReceiver();
  const state = tempDir('mon-e2e-agent-');
  let agent: ReturnType<typeof startAgentProcess> | null = null;
  let proxy: Awaited<ReturnType<typeof startProxy>> | null = null;
  try {
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    proxy = await startProxy((server.app.server.address() as AddressInfo).port);
    const added = await server.app.inject({
      method: 'POST',
      url: '/api/v1/hosts',
      payload: { name: 'web-1' },
    });
    assert.equal(added.statusCode, 201, added.body);
    const { token } = added.json() as AddedHost;
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/v1/checks',
      payload: {
        name: 'storefront',
        service: 'shop',
        kind: 'http',
        target: `${target.url}/health`,
        from: 'web-1',
        everyMs: 10_000,
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const checkId = (created.json() as { id: string }).id;
    const status = () => server.checks.engine.get(checkId)?.rec.state.status;
    const read = server.deps.store.read;
    const host = () => one(read, 'SELECT latest, silent_since FROM hosts WHERE name = ?', hostRow, 'web-1')!;
    const rollups = () =>
      one(
        read,
        `SELECT coalesce(sum(memory_n), 0) AS samples, coalesce(sum(cpu_n), 0) AS cpu, max(cpu_max) AS cpu_max
         FROM host_rollups WHERE host = 'web-1' AND res = 'm'`,
        rollupRow,
      )!;
    const spooled = () => spooledFrames(join(state.dir, 'spool'));
    const latestTs = () => (JSON.parse(host().latest ?? '{"ts": 0}') as { ts: number }).ts;
    // Samples in the spool the server has not stored (one whose answer the cut lost may be both).
    const unsent = () => {
      const stored = latestTs();
      return spooled().filter((frame): frame is SampleFrame => frame.kind === 'sample' && frame.ts > stored);
    };
    const page = async () => {
      const res = await server.app.inject({ method: 'GET', url: '/api/v1/hosts/web-1' });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as HostRead;
    };
    const cpuMaxOf = (view: HostRead) => Math.max(...view.series.cpuMax.filter((v) => v !== null));
    const checkOf = (view: HostRead) => view.checks.find((check) => check.id === checkId)?.status;
    const incidents = async () => {
      const res = await server.app.inject({ method: 'GET', url: '/api/v1/incidents' });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as IncidentsList).incidents.filter((i) => i.title === 'web-1: agent silent');
    };

    // Run as the install commands run it: with their Node flags.
    const startAgent = () =>
      startAgentProcess(process.execPath, [...AGENT_NODE_FLAGS, 'agent/main.ts'], {
        cwd: repo,
        env: {
          PATH: fakeHost.path,
          MON_SERVER: proxy!.url,
          MON_TOKEN: token,
          MON_HOST_ROOT: fakeHost.root,
          MON_STATE_DIR: state.dir,
        },
      });
    agent = startAgent();

    // Connected: the host's charts have data, its containers and units are known, the check runs there.
    await within(15_000, 'samples with a CPU value stored', () => rollups().cpu >= 2);
    await within(20_000, 'the check run by the agent', () => status() === 'up');
    assert.ok(target.received.some((r) => r.path === '/health'));
    const connected = await page();
    assert.equal(connected.agent?.connected, true);
    assert.equal(connected.agent?.protocol, AGENT_PROTOCOL);
    assert.equal(cpuMaxOf(connected), 25, 'the fake host is 25% busy');
    // The fake host's own /proc (under MON_HOST_ROOT), not the machine's the test runs on.
    const KiB = 1024;
    assert.deepEqual(
      [connected.now?.memory?.total, connected.now?.memory?.used, connected.now?.swap?.total],
      [16_303_480 * KiB, (16_303_480 - 9_876_540) * KiB, 2_097_148 * KiB],
      'MemTotal, MemTotal - MemAvailable and SwapTotal of the fixture meminfo',
    );
    assert.deepEqual(connected.now?.load, [0.52, 0.58, 0.59], 'the fixture loadavg');
    assert.equal(connected.containers.length, 3);
    assert.equal(connected.units.length, 10);
    assert.equal(checkOf(connected), 'up');

    // Cut off: the agent keeps sampling into its spool (the host now 80% busy, to tell those samples apart).
    proxy.cut();
    fakeHost.setCpuBusy(80);
    await within(10_000, 'two samples waiting in the spool', () => unsent().length >= 2);

    // Silent on the server's clock: the check turns unknown and the host opens an incident.
    await clock.advance(AGENT_SILENT_AFTER_MS + 1000);
    await within(5000, 'the host silent', () => host().silentSince !== null);
    await within(5000, 'the check unknown', () => status() === 'unknown');
    assert.equal(server.checks.engine.get(checkId)?.rec.lastDetail, 'the agent on web-1 is silent');
    const silent = await page();
    assert.equal(silent.agent?.connected, false);
    assert.equal(checkOf(silent), 'unknown');
    const [opened] = await incidents();
    assert.equal(opened?.state, 'open');
    assert.deepEqual(opened?.hosts, ['web-1']);

    // The agent is stopped with frames in its spool; it keeps them on disk.
    agent.child.kill('SIGTERM');
    assert.deepEqual(await agent.exited, [0, null]);
    const kept = unsent();
    assert.ok(kept.length >= 2, 'the spool outlives the process');

    // Back, started again (the host 25% busy again, so 80% can only come from the spool): what waited
    // in the spool arrives, oldest first, and the silence ends.
    fakeHost.setCpuBusy(25);
    const before = rollups().samples;
    proxy.restore();
    agent = startAgent();
    await within(20_000, 'the spool sent', () => host().silentSince === null && spooled().length === 0);
    assert.ok(rollups().samples >= before + kept.length, 'every spooled sample is stored');
    assert.equal(rollups().cpuMax, 80, 'samples taken while cut off are in the rollups');
    const back = await page();
    assert.equal(back.agent?.connected, true);
    assert.equal(cpuMaxOf(back), 80, "and in the host's CPU chart");
    const newest = JSON.parse(host().latest!) as { ts: number };
    assert.ok(newest.ts >= Math.max(...kept.map((sample) => sample.ts)));
    const cutLines = scalar(
      read,
      "SELECT count(*) AS n FROM agent_logs WHERE host = 'web-1' AND text LIKE 'cannot send frames%'",
      int,
    );
    assert.ok(cutLines >= 1, 'the log lines of the outage arrived with the spool');
    const resolvedAt = () =>
      one(read, 'SELECT resolved_at FROM incidents WHERE id = ?', resolvedRow, opened!.id)?.resolvedAt;
    await within(5000, 'the incident resolved', () => typeof resolvedAt() === 'number');
    assert.equal((await incidents()).find((i) => i.id === opened!.id)?.state, 'resolved');

    agent.child.kill('SIGTERM');
    assert.deepEqual(await agent.exited, [0, null]);
    assert.doesNotMatch(agent.stderr(), new RegExp(token));
  } finally {
    agent?.kill();
    await proxy?.close();
    await server.dispose();
    await target.close();
    await fakeHost.close();
    state.remove();
  }
});

/** The frames waiting in the agent's spool (files being written or deleted meanwhile are passed over). */
function spooledFrames(dir: string): AgentFrame[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json.gz'));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    try {
      return (JSON.parse(gunzipSync(readFileSync(join(dir, name))).toString()) as { frames: AgentFrame[] })
        .frames;
    } catch {
      return [];
    }
  });
}

/**
 * A TCP proxy on loopback to `port`. Cut: every connection through it is dropped, and new ones are
 * closed as they come (the agent sees its requests fail). Restored: it passes connections again.
 */
async function startProxy(port: number) {
  const sockets = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = net.connect(port, '127.0.0.1');
    const pair = [client, upstream];
    for (const socket of pair) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        for (const other of pair) {
          other.destroy();
          sockets.delete(other);
        }
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut() {
      cut = true;
      dropAll();
    },
    restore() {
      cut = false;
    },
    close: () => {
      dropAll();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
