import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { HOUR, MINUTE } from '../../../protocol/durations.ts';
import type { Cause } from '../../../protocol/incidents.ts';
import type { RunOutcome } from '../../../runners/run.ts';
import { FakeClock } from '../../clock.ts';
import { createTestServer, tempDir } from '../../testing.ts';
import { serviceGraph } from '../graph.ts';
import type { HostEvent } from './candidates.ts';
import { type CauseScope, likelyCauses } from './index.ts';

/**
 * The world of the likely-cause scenarios: a whole server on a fake clock, with the services below in
 * its mon.toml. shop (on web1) depends on api (on app1), which depends on db (on db1); blog (on web2)
 * and shop-eu (on web3) are unrelated. Checks have no runners: their results are recorded as an
 * agent's would be, so the check engine's state machine writes their changes.
 */

const monToml = `
[[service]]
name = "shop"
hosts = ["web1"]
depends_on = ["api"]

[[service]]
name = "api"
hosts = ["app1"]
depends_on = ["db"]

[[service]]
name = "db"
hosts = ["db1"]

[[service]]
name = "blog"
hosts = ["web2"]

[[service]]
name = "shop-eu"
hosts = ["web3"]

[[check]]
name = "shop home"
service = "shop"
url = "https://shop.example.com/"
every = "1m"

[[check]]
name = "shop domain"
service = "shop"
domain = "shop.example.com"

[[check]]
name = "api health"
service = "api"
url = "https://api.example.com/health"
every = "1m"

[[check]]
name = "db port"
service = "db"
tcp = "db.internal:5432"
every = "1m"

[[check]]
name = "blog home"
service = "blog"
url = "https://blog.example.com/"
every = "1m"

[[check]]
name = "shop-eu home"
service = "shop-eu"
url = "https://eu.shop.example.com/"
every = "1m"
`;

/** What a scenario builds its history with; times are offsets from the incident's start. */
export type World = {
  /** When the incident of shop started. */
  start: number;
  deploy(d: { service: string; version: string; at: number; host?: string; by?: string; url?: string }): void;
  change(c: { what: string; at: number; kind?: 'change' | 'push'; service?: string; host?: string }): void;
  /** Something an agent saw on a host (a row of host_events, as the agent's frames record them). */
  hostEvent(e: {
    host: string;
    kind: HostEvent['kind'];
    subject: string;
    at: number;
    detail: string;
    service?: string;
  }): void;
  /** Results of a check at offsets from the start, through the check engine. */
  runs(check: string, results: [offset: number, outcome: RunOutcome][]): Promise<void>;
  /** Brings a check back to up well before the start (two successes over 4 minutes). */
  settle(check: string): Promise<void>;
};

export const up: RunOutcome = { status: 'up', latencyMs: 80, detail: '200 OK' };
export const fail: RunOutcome = { status: 'down', latencyMs: null, detail: '503 Service Unavailable' };
export const titles = (causes: Cause[]) => causes.map((c) => c.title);

/** One constructed incident of shop: how to build its history, and the causes it must (not) have. */
export type Scenario = {
  name: string;
  /** Builds the history before (and after) the incident's start. */
  build(w: World): Promise<void>;
  /** The first cause's title, or null: no likely cause. */
  first: string | null;
  /** Titles that must not be among the causes. */
  absent?: RegExp[];
  /** What the incident is about, when it is not shop's (its alerts a check of shop). */
  scope?: Omit<CauseScope, 'start'>;
  more?(causes: Cause[], start: number): void;
};

export async function scenarioWorld() {
  const data = tempDir();
  writeFileSync(join(data.dir, 'mon.toml'), monToml);
  const clock = new FakeClock(Date.UTC(2026, 2, 2, 12));
  const server = await createTestServer({ clock, dataDir: data.dir, checks: { runners: {} } });
  const { engine } = server.checks;
  const { writer, read } = server.deps.store;
  const graph = serviceGraph(server.deps.config.current().services);
  const idOf = (name: string) => engine.all().find((e) => e.rec.name === name)!.rec.id;

  /** Builds one incident's history, later than the one before (beyond its windows) on emptied tables, and ranks its causes. */
  async function incident(
    build: (w: World) => Promise<void>,
    scope: Omit<CauseScope, 'start'> = { services: ['shop'], hosts: [], alerts: [] },
  ): Promise<{ start: number; causes: Cause[] }> {
    await clock.advance(4 * HOUR);
    await writer.run((db) =>
      db.exec(
        'DELETE FROM deploys; DELETE FROM changes; DELETE FROM check_changes; DELETE FROM host_events;',
      ),
    );
    const start = clock.now();
    const inserts: ((db: DatabaseSync) => void)[] = [];
    const world: World = {
      start,
      deploy: (d) =>
        inserts.push((db) =>
          db
            .prepare(
              `INSERT INTO deploys (service, version, ts, by, url, source, sources, host)
               VALUES (?, ?, ?, ?, ?, 'api', 'api', ?)`,
            )
            .run(d.service, d.version, start + d.at, d.by ?? null, d.url ?? null, d.host ?? null),
        ),
      change: (c) =>
        inserts.push((db) =>
          db
            .prepare(
              `INSERT INTO changes (ts, kind, what, service, host, source) VALUES (?, ?, ?, ?, ?, 'api')`,
            )
            .run(start + c.at, c.kind ?? 'change', c.what, c.service ?? null, c.host ?? null),
        ),
      hostEvent: (e) =>
        inserts.push((db) =>
          db
            .prepare(
              'INSERT INTO host_events (host, ts, kind, subject, service, detail) VALUES (?, ?, ?, ?, ?, ?)',
            )
            .run(e.host, start + e.at, e.kind, e.subject, e.service ?? null, e.detail),
        ),
      async runs(check, results) {
        // Queued together, they are written in order in one transaction.
        await Promise.all(
          results.map(([offset, outcome]) => engine.recordRun(idOf(check), outcome, start + offset)),
        );
      },
      async settle(check) {
        await world.runs(
          check,
          [0, 1, 2, 3, 4].map((m) => [-2 * HOUR + m * MINUTE, up]),
        );
      },
    };
    await build(world);
    await writer.run((db) => {
      for (const insert of inserts) insert(db);
    });
    return { start, causes: likelyCauses(read, { start, ...scope }, graph) };
  }

  return { incident, dispose: () => server.dispose() };
}
