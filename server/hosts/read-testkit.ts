import { createHash } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { ContainerSample, HelloFrame, SampleFrame, UnitSample } from '../../protocol/agent.ts';
import { statement } from '../store/statements.ts';
import type { TestServer } from '../testing.ts';
import { addItemSamples, itemId } from './items.ts';
import { addHostSample, hostMetricsOf } from './rollups.ts';

/**
 * Host data for tests of the host reads, written through the real writer and rollups as an agent's
 * frames would store them: a hello, samples (rollups and the latest), containers and units.
 */

const GiB = 1024 ** 3;

/** A sample of a host with two filesystems and two sensors; `over` replaces fields. */
export const sampleOf = (ts: number, over: Partial<SampleFrame> = {}): SampleFrame => ({
  kind: 'sample',
  ts,
  cpu: 42,
  memory: { used: 3 * GiB, total: 4 * GiB },
  swap: null,
  disks: [
    { mount: '/', device: '/dev/sda1', fstype: 'ext4', used: 60, size: 100 },
    { mount: '/boot', device: '/dev/sda2', fstype: 'ext4', used: 97, size: 100 },
  ],
  diskIo: { readBps: 1000, writeBps: 2000 },
  net: { rxBps: 300, txBps: 400 },
  load: [0.5, 0.25, 0.125],
  temperatures: [{ sensor: 'coretemp Core 0', celsius: 55 }],
  containers: null,
  units: null,
  ...over,
});

export const helloOf = (over: Partial<HelloFrame> = {}): Omit<HelloFrame, 'kind' | 'ts'> => ({
  agentVersion: '0.1.0',
  protocol: 1,
  capabilities: ['ping', 'headers'],
  hostname: 'web-1.internal',
  os: 'Debian GNU/Linux 12',
  kernel: '6.1.0-18-amd64',
  arch: 'x64',
  cores: 4,
  ...over,
});

/** The id of a container or unit, as ingest makes it. */
export { itemId };

/** The agent said hello at `ts`: the host's row with its agent, first and last seen. */
export function storeHello(server: TestServer, host: string, ts: number, hello = helloOf()): Promise<void> {
  return server.deps.store.writer.run((db) => {
    statement(
      db,
      `INSERT INTO hosts (name, created_at, agent, first_seen, last_seen) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET agent = excluded.agent, first_seen = coalesce(first_seen, excluded.first_seen),
         last_seen = excluded.last_seen`,
    ).run(host, ts, JSON.stringify(hello), ts, ts);
  });
}

/** A sample stored: its rollups, the host's latest sample and last frame, its containers and units. */
export function storeSample(server: TestServer, host: string, sample: SampleFrame): Promise<void> {
  return server.deps.store.writer.run((db) => {
    statement(
      db,
      `INSERT INTO hosts (name, created_at, latest, last_seen) VALUES (?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET latest = excluded.latest, last_seen = excluded.last_seen`,
    ).run(host, sample.ts, JSON.stringify(sample), sample.ts);
    addHostSample(db, host, sample.ts, hostMetricsOf(sample, []));
    for (const c of sample.containers ?? []) storeItem(db, host, 'container', c, sample.ts);
    for (const u of sample.units ?? []) storeItem(db, host, 'unit', u, sample.ts);
    addItemSamples(db, host, sample);
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

export const containerOf = (name: string, over: Partial<ContainerSample> = {}): ContainerSample => ({
  id: createHash('sha256').update(name).digest('hex'),
  name,
  image: `${name}:1.0`,
  imageId: `sha256:${createHash('sha256').update(`${name} image`).digest('hex')}`,
  state: 'running',
  health: null,
  restarts: 0,
  exitCode: null,
  oomKilled: false,
  startedAt: Date.UTC(2026, 0, 1),
  finishedAt: null,
  cpu: 12.5,
  memory: 200 * 1024 ** 2,
  labels: {},
  ...over,
});

export const unitOf = (name: string, over: Partial<UnitSample> = {}): UnitSample => ({
  name,
  state: 'active',
  subState: 'running',
  restarts: 0,
  cpu: 1.5,
  memory: 50 * 1024 ** 2,
  ...over,
});
