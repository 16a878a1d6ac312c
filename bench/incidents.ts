import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { DAY, HOUR, MINUTE } from '../protocol/durations.ts';
import { newRecord } from '../server/checks/manage.ts';
import { addToRollups } from '../server/checks/rollups.ts';
import { ensureService, insertCheck } from '../server/checks/store.ts';
import { serviceGraph } from '../server/incidents/graph.ts';
import { readIncident, readIncidents } from '../server/incidents/reads.ts';
import { insertAlert, insertEvent, insertIncident } from '../server/incidents/store.ts';
import { openStore } from '../server/store/db.ts';
import { statement } from '../server/store/statements.ts';
import { tempDir } from '../server/testing.ts';
import type { Benchmark } from './main.ts';

const CHECKS = 1000;
const INCIDENTS = 1000;
const SERVICES = 50;
const TIMES = 50;

const hex = (n: number) => n.toString(16).padStart(16, '0');

/** The host incident's host runs 300 containers and 400 units; 100 other hosts run 20 each. */
const BIG_HOST_ITEMS = 700;
const OTHER_HOSTS = 100;
const OTHER_HOST_ITEMS = 20;

/**
 * A host incident of `web-0` two hours ago, resolved 30 minutes later: its items listed, and a minute
 * rollup of each host's items from an hour before it to an hour after (the read's minute step), so that
 * a read of every host's items in the span would show in its time.
 */
function hostIncident(db: DatabaseSync, id: string, now: number): void {
  const start = now - 2 * HOUR;
  insertIncident(db, {
    id,
    title: 'web-0: memory above 90%',
    service: null,
    startedAt: start,
    acknowledgedAt: null,
    acknowledgedBy: null,
    resolvedAt: start + 30 * MINUTE,
    inMaintenance: false,
    topCause: null,
  });
  insertAlert(db, {
    incident: id,
    key: 'host:web-0:memory',
    checkId: null,
    service: null,
    host: 'web-0',
    name: 'web-0 memory',
    detail: '95%',
    impact: false,
    openedAt: start,
    recoveredAt: start + 30 * MINUTE,
  });
  const item = statement(
    db,
    `INSERT INTO host_items (host, kind, name, id, state, first_seen, updated_at)
     VALUES (?, ?, ?, ?, 'running', ?, ?)`,
  );
  const rollup = statement(
    db,
    `INSERT INTO item_rollups (host, kind, name, res, bucket, cpu_n, cpu_sum, cpu_max, mem_n, mem_sum, mem_max)
     VALUES (?, ?, ?, 'm', ?, 4, ?, ?, 4, ?, ?)`,
  );
  for (let h = 0; h <= OTHER_HOSTS; h++) {
    const host = `web-${h}`;
    const count = h === 0 ? BIG_HOST_ITEMS : OTHER_HOST_ITEMS;
    for (let i = 0; i < count; i++) {
      const kind = i % 7 < 3 ? 'container' : 'unit';
      const name = `${kind}-${i}`;
      item.run(host, kind, name, `${host}/${name}`, start - DAY, now);
      const mem = (1 + i) * 1e6;
      for (let ts = start - HOUR; ts < start + HOUR; ts += MINUTE)
        rollup.run(host, kind, name, ts, 4, 1, 4 * mem, mem);
    }
  }
}

/**
 * The incident reads with 1,000 checks and 1,000 incidents of the last 30 days (3 alerts and 4 timeline
 * rows each, 20 still open), 1,500 deploys and 720 changes: the list (`GET /api/v1/incidents`, default range) and one incident with
 * its timeline and the response times of its checks (minute rollups around it); a host incident with
 * its host's charts and largest containers and units (`hostIncident`). Median of 50 reads.
 */
export const benchmark: Benchmark = {
  name: 'incidents',
  async run() {
    const { dir, remove } = tempDir('mon-bench-');
    const store = openStore(join(dir, 'mon.db'));
    const now = Date.now();
    const services = Array.from({ length: SERVICES }, (_, i) => `service-${i}`);
    await store.writer.run((db) => {
      for (const s of services) ensureService(db, s, now);
      for (let i = 0; i < CHECKS; i++) {
        const body = { name: `check-${i}`, service: services[i % SERVICES]!, kind: 'tcp' as const };
        insertCheck(
          db,
          newRecord(hex(i), { ...body, target: `10.0.0.${i % 250}:80`, from: 'web1' }, now, false, null),
        );
      }
      for (let i = 0; i < INCIDENTS; i++) {
        const id = hex(1_000_000 + i);
        const start = now - Math.floor(((i + 1) * 30 * DAY) / (INCIDENTS + 1));
        const resolvedAt = i < 20 ? null : start + 20 * MINUTE;
        const service = services[i % SERVICES]!;
        insertIncident(db, {
          id,
          title: `${service}: check down`,
          service,
          startedAt: start,
          acknowledgedAt: null,
          acknowledgedBy: null,
          resolvedAt,
          inMaintenance: false,
          topCause: null,
        });
        for (let a = 0; a < 3; a++) {
          const check = hex((i * 3 + a) % CHECKS);
          insertAlert(db, {
            incident: id,
            key: `check:${check}`,
            checkId: check,
            service,
            host: null,
            name: `check-${(i * 3 + a) % CHECKS}`,
            detail: 'connection refused',
            impact: a > 0,
            openedAt: start + a * MINUTE,
            recoveredAt: resolvedAt,
          });
          const row = { detail: null, check, service, host: null, by: null, url: null };
          insertEvent(db, id, {
            ...row,
            ts: start + a * MINUTE,
            kind: a === 0 ? 'opened' : 'alert',
            title: 'down',
          });
        }
        if (resolvedAt !== null) {
          insertEvent(db, id, {
            ts: resolvedAt,
            kind: 'resolved',
            title: 'resolved',
            detail: null,
            check: null,
            service,
            host: null,
            by: null,
            url: null,
          });
        }
      }
    });
    // A deploy of each service a day and a change every hour, over the 30 days.
    await store.writer.run((db) => {
      const deploy = statement(
        db,
        `INSERT INTO deploys (service, version, ts, by, url, description, source, sources)
         VALUES (?, ?, ?, 'ci', NULL, NULL, 'api', 'api')`,
      );
      for (let day = 0; day < 30; day++) {
        for (const [i, s] of services.entries()) deploy.run(s, `v${day}`, now - day * DAY - i * MINUTE);
      }
      const change = statement(
        db,
        `INSERT INTO changes (ts, kind, what, service, host, by, url, description, source)
         VALUES (?, 'change', 'migration', ?, NULL, 'ops', NULL, NULL, 'api')`,
      );
      for (let h = 0; h < 30 * 24; h++)
        change.run(now - h * HOUR, h % 3 === 0 ? null : services[h % SERVICES]!);
    });
    const hostTarget = hex(2_000_000);
    await store.writer.run((db) => hostIncident(db, hostTarget, now));
    // The incident read: the newest resolved one, with a run a minute of its checks from 2 hours before.
    const target = hex(1_000_020);
    const targetStart = now - Math.floor((21 * 30 * DAY) / (INCIDENTS + 1));
    await store.writer.run((db) => {
      for (let a = 0; a < 3; a++) {
        for (let ts = targetStart - 2 * HOUR; ts < targetStart + 2 * HOUR; ts += MINUTE) {
          addToRollups(db, {
            checkId: hex((20 * 3 + a) % CHECKS),
            ts,
            status: 'up',
            latencyMs: 40 + (ts % 7),
            value: null,
          });
        }
      }
    });
    const graph = serviceGraph([]);
    const statusOf = () => 'up' as const;
    const median = (fn: () => unknown) => {
      const times: number[] = [];
      for (let i = 0; i < TIMES; i++) {
        const began = performance.now();
        JSON.stringify(fn());
        times.push(performance.now() - began);
      }
      times.sort((a, b) => a - b);
      return times[Math.floor(TIMES / 2)]!;
    };
    const list = median(() => readIncidents(store.read, graph, { from: now - 30 * DAY, to: now }));
    const count = readIncidents(store.read, graph, { from: now - 30 * DAY, to: now }).incidents.length;
    const one = median(() => readIncident(store.read, graph, statusOf, () => [], target, now));
    const ofHost = median(() => readIncident(store.read, graph, statusOf, () => [], hostTarget, now));
    const shown = readIncident(store.read, graph, statusOf, () => [], hostTarget, now)?.hosts[0];
    if (shown?.containers.length !== 5 || shown.units.length !== 5)
      throw new Error('the host incident shows no five largest containers and units');
    await store.close();
    remove();
    return [
      {
        name: `incident list (${count} of ${INCIDENTS.toLocaleString('en')}, ${CHECKS.toLocaleString('en')} checks)`,
        value: `${list.toFixed(1)} ms`,
        goal: '< 50 ms',
        ok: list < 50,
      },
      {
        name: 'incident read (3 checks, timeline)',
        value: `${one.toFixed(1)} ms`,
        goal: '< 50 ms',
        ok: one < 50,
      },
      {
        name: `host incident read (a host of ${BIG_HOST_ITEMS} items among ${OTHER_HOSTS + 1} hosts)`,
        value: `${ofHost.toFixed(1)} ms`,
        goal: '< 50 ms',
        ok: ofHost < 50,
      },
    ];
  },
};
