import type { DatabaseSync } from 'node:sqlite';
import { statement } from '../../server/store/statements.ts';

/**
 * A host of a few hundred containers and units, none of a service (so each is also discovered), for
 * the host page at scale. Most idle; a few in trouble, placed far down by name, where a list by name
 * would never show them first.
 */
export const bigHost = {
  containers: 300,
  units: 400,
  /** Containers in trouble: exited with an error, unhealthy, restarting. */
  failingContainers: ['app-287', 'app-291', 'app-299'],
  failingUnit: 'svc-399.service',
  /** The busiest container that is fine. */
  busiest: 'app-250',
};

const pad = (n: number) => String(n).padStart(3, '0');

/** Writes the items of `host` (already added) as its agent last reported them at `at`. */
export function seedBigHost(db: DatabaseSync, host: string, at: number): void {
  const item = statement(
    db,
    `INSERT INTO host_items (host, kind, name, id, state, sub_state, health, restarts, exit_code, image, labels,
       cpu, memory, first_seen, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '{}', ?, ?, ?, ?)`,
  );
  let id = 0;
  const nextId = () => (0xb000000000000000n + BigInt(id++)).toString(16);
  for (let n = 0; n < bigHost.containers; n++) {
    const name = `app-${pad(n)}`;
    const [state, health, exit] =
      name === 'app-287'
        ? ['exited', null, 1]
        : name === 'app-291'
          ? ['running', 'unhealthy', null]
          : name === 'app-299'
            ? ['restarting', null, null]
            : ['running', null, null];
    const cpu = name === bigHost.busiest ? 95 : (n * 7) % 40;
    item.run(
      host,
      'container',
      name,
      nextId(),
      state,
      null,
      health,
      name === 'app-299' ? 12 : 0,
      exit,
      `registry.example.com/team/app-${pad(n)}:1.${n}`,
      cpu,
      (64 + n) * 2 ** 20,
      at - (n + 1) * 60_000,
      at - 60_000,
    );
  }
  for (let n = 0; n < bigHost.units; n++) {
    const name = `svc-${pad(n)}.service`;
    const failed = name === bigHost.failingUnit;
    item.run(
      host,
      'unit',
      name,
      nextId(),
      failed ? 'failed' : 'active',
      failed ? 'failed' : 'running',
      null,
      0,
      null,
      null,
      failed ? null : (n * 3) % 10,
      failed ? null : (8 + (n % 50)) * 2 ** 20,
      at - (n + 1) * 60_000,
      at - 60_000,
    );
  }
}
