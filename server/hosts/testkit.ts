import { createHash } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { gzipSync } from 'node:zlib';
import type { ContainerSample, HelloFrame, SampleFrame, UnitSample } from '../../protocol/agent.ts';
import type { Principal } from '../auth/access.ts';
import type { Any } from '../checks/testkit.ts';
import { FakeClock } from '../clock.ts';
import type { ConfigService } from '../config/service.ts';
import type { Log } from '../log.ts';
import type { ServerOptions } from '../start.ts';
import { statement } from '../store/statements.ts';
import type { TestServer } from '../testing.ts';
import { createTestServer } from '../testing.ts';
import { addItemSamples, itemId } from './items.ts';
import { addHostSample, hostMetricsOf } from './rollups.ts';
import { newHostToken, putHostToken, type TokenBy } from './store.ts';

/**
 * The hosts' testkit: a server with hosts and their agents (`hostServer`), the frames an agent sends
 * (`hello`, `sample`, `container`, `unit`), and, for tests of the reads, those frames stored as ingest
 * stores them (`storeHello`, `storeSample`).
 */

export const T0 = Date.UTC(2026, 0, 1);

/**
 * A server on a fake clock whose API calls are an admin's token, that runs no check itself (checks
 * with `from` run on agents), with helpers to add hosts and to speak as their agents.
 */
export async function hostServer(
  options: {
    config?: ConfigService;
    log?: Log;
    env?: Record<string, string>;
    store?: ServerOptions['store'];
    dataDir?: string;
    clock?: FakeClock;
    hosts?: ServerOptions['hosts'];
  } = {},
) {
  const clock = options.clock ?? new FakeClock(T0);
  const admin: Principal = { kind: 'token', tokenId: 't1', scope: 'write', label: 'test' };
  const server = await createTestServer({
    clock,
    authenticate: async () => admin,
    checks: { runners: {} },
    ...options,
  });
  const engine = server.checks.engine;
  const db = server.deps.store.read;
  const kit = { server, clock, engine };

  /** A JSON API call with the admin token. */
  const inject = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) => {
    const res = await server.app.inject({
      method,
      url,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: res.statusCode, body: (res.body ? res.json() : null) as Any };
  };

  /** Adds a host (or gives it a new token, made by an admin unless told otherwise) and returns its token. */
  const addHost = async (name: string, by: TokenBy = 'admin'): Promise<string> => {
    const { token, hash } = newHostToken();
    await server.deps.store.writer.run((d) => putHostToken(d, name, hash, kit.clock.now(), by));
    return token;
  };

  /** Sends frames as an agent does: JSON, gzip unless told otherwise; `batch` names the batch. */
  const send = async (
    token: string | null,
    frames: unknown[],
    options: { gzip?: boolean; body?: Buffer; headers?: Record<string, string>; batch?: string } = {},
  ) => {
    const json = Buffer.from(
      JSON.stringify({ ...(options.batch !== undefined && { batch: options.batch }), frames }),
    );
    const gzip = options.gzip ?? true;
    const res = await server.app.inject({
      method: 'POST',
      url: '/agent/v1/frames',
      headers: {
        'content-type': 'application/json',
        ...(gzip && { 'content-encoding': 'gzip' }),
        ...(token !== null && { authorization: `Bearer ${token}` }),
        ...options.headers,
      },
      payload: options.body ?? (gzip ? gzipSync(json) : json),
    });
    return { status: res.statusCode, body: res.json() as Any, headers: res.headers };
  };

  /** `GET /agent/v1/poll` as an agent with both capabilities unless told otherwise, with `headers`. */
  const poll = async (
    token: string,
    query: { assignment?: string; version?: string; capabilities?: string } = {},
    headers: Record<string, string> = {},
  ) => {
    const params = new URLSearchParams({
      assignment: query.assignment ?? '',
      version: query.version ?? '0.1.0',
      protocol: '1',
      capabilities: query.capabilities ?? 'ping,headers',
    });
    const res = await server.app.inject({
      method: 'GET',
      url: `/agent/v1/poll?${params}`,
      headers: { authorization: `Bearer ${token}`, ...headers },
    });
    return { status: res.statusCode, body: res.json() as Any, headers: res.headers };
  };

  const count = (sql: string, ...params: (string | number)[]) =>
    (db.prepare(sql).get(...params) as { n: number }).n;

  return { ...kit, db, inject, addHost, send, poll, count };
}

export const GiB = 1024 ** 3;

/** A host sample as the agent sends it: one filesystem, half full; `over` replaces fields. */
export const sample = (ts: number, over: Partial<SampleFrame> = {}): SampleFrame => ({
  kind: 'sample',
  ts,
  cpu: 40,
  memory: { used: 3 * GiB, total: 4 * GiB },
  swap: null,
  disks: [{ mount: '/', device: '/dev/sda1', fstype: 'ext4', used: 50, size: 100 }],
  diskIo: { readBps: 1000, writeBps: 2000 },
  net: { rxBps: 300, txBps: 400 },
  load: [1, 0.5, 0.25],
  temperatures: [{ sensor: 'coretemp Core 0', celsius: 51 }],
  containers: null,
  units: null,
  ...over,
});

/** The body of an http check `home` of service shop run from web-1 every 30 s, for `runFrame`s. */
export const agentCheck = {
  name: 'home',
  service: 'shop',
  kind: 'http',
  target: 'https://home.example.com/',
  everyMs: 30_000,
  from: 'web-1',
};

/** A run frame of the check `id`: up with 200 OK, or as `over` says. */
export const runFrame = (id: string, ts: number, over: Record<string, unknown> = {}) => ({
  kind: 'run',
  ts,
  id,
  status: 'up',
  latencyMs: 12,
  detail: '200 OK',
  ...over,
});

export const IMAGE_A = `sha256:${'a'.repeat(64)}`;
export const IMAGE_B = `sha256:${'b'.repeat(64)}`;

/** A running container named `api` unless told; its id follows from its name unless given. */
export const container = (over: Partial<ContainerSample> = {}): ContainerSample => {
  const name = over.name ?? 'api';
  return {
    id: createHash('sha256').update(name).digest('hex'),
    name,
    image: 'shop/api:1.0',
    imageId: IMAGE_A,
    state: 'running',
    health: null,
    restarts: 0,
    exitCode: null,
    oomKilled: false,
    startedAt: T0,
    finishedAt: null,
    cpu: 12.5,
    memory: 200 * 1024 * 1024,
    labels: {},
    ...over,
  };
};

/** An active systemd service, `nginx.service` unless told. */
export const unit = (over: Partial<UnitSample> = {}): UnitSample => ({
  name: 'nginx.service',
  state: 'active',
  subState: 'running',
  restarts: 0,
  cpu: 1.5,
  memory: 30 * 1024 * 1024,
  ...over,
});

export const hello = (ts: number, over: Partial<HelloFrame> = {}): HelloFrame => ({
  kind: 'hello',
  ts,
  agentVersion: '0.1.0',
  protocol: 1,
  capabilities: ['ping', 'headers'],
  hostname: 'web-1.example.com',
  os: 'Debian GNU/Linux 12',
  kernel: '6.1.0-18-amd64',
  arch: 'x64',
  cores: 4,
  ...over,
});

/** The id of a container or unit, as ingest makes it. */
export { itemId };

/** The agent said hello: the host's row with its agent, first and last seen. */
export function storeHello(server: TestServer, host: string, frame: HelloFrame): Promise<void> {
  const { kind: _, ts, ...agent } = frame;
  return server.deps.store.writer.run((db) => {
    statement(
      db,
      `INSERT INTO hosts (name, created_at, agent, first_seen, last_seen) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET agent = excluded.agent, first_seen = coalesce(first_seen, excluded.first_seen),
         last_seen = excluded.last_seen`,
    ).run(host, ts, JSON.stringify(agent), ts, ts);
  });
}

/**
 * A sample stored as ingest stores it, through the same rollups and item samples: its rollups, the
 * host's latest sample and last frame, its containers and units.
 */
export function storeSample(server: TestServer, host: string, frame: SampleFrame): Promise<void> {
  return server.deps.store.writer.run((db) => {
    statement(
      db,
      `INSERT INTO hosts (name, created_at, latest, last_seen) VALUES (?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET latest = excluded.latest, last_seen = excluded.last_seen`,
    ).run(host, frame.ts, JSON.stringify(frame), frame.ts);
    addHostSample(db, host, frame.ts, hostMetricsOf(frame, []));
    for (const c of frame.containers ?? []) storeItem(db, host, 'container', c, frame.ts);
    for (const u of frame.units ?? []) storeItem(db, host, 'unit', u, frame.ts);
    addItemSamples(db, host, frame);
  });
}

function storeItem(
  db: DatabaseSync,
  host: string,
  kind: 'container' | 'unit',
  item: ContainerSample | UnitSample,
  ts: number,
): void {
  const c = kind === 'container' ? (item as ContainerSample) : null;
  const u = kind === 'unit' ? (item as UnitSample) : null;
  statement(
    db,
    `INSERT INTO host_items (host, kind, name, id, state, sub_state, health, restarts, exit_code, image,
       image_id, started_at, labels, cpu, memory, first_seen, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(host, kind, name) DO UPDATE SET state = excluded.state, restarts = excluded.restarts,
       cpu = excluded.cpu, memory = excluded.memory, updated_at = excluded.updated_at, gone_at = NULL`,
  ).run(
    host,
    kind,
    item.name,
    itemId(host, kind, item.name),
    item.state,
    u?.subState ?? null,
    c?.health ?? null,
    item.restarts,
    c?.exitCode ?? null,
    c?.image ?? null,
    c?.imageId ?? null,
    c?.startedAt ?? null,
    c ? JSON.stringify(c.labels) : null,
    item.cpu,
    item.memory,
    ts,
    ts,
  );
}
