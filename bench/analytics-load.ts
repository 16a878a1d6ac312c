import { createVisitors, quantile } from './analytics-visitors.ts';
import { KeepAliveConnection } from './keep-alive-connection.ts';

/**
 * The load generator of the analytics benchmark, in its own process so that it does not share the
 * server's event loop or the benchmark's: tracker events (`POST /e`) from simulated visitors at a
 * target rate, over keep-alive connections behind a simulated reverse proxy (each visitor's address in
 * `X-Forwarded-For`). Phases: `ramp` (0 to the rate), `steady`, then `flood`, the same load plus one
 * address sending as fast as its connections are answered. Sends a `{phase}` message as each begins
 * and a `LoadReport` at the end.
 *
 * argv: one JSON `LoadPlan`.
 */
export type LoadPlan = {
  host: string;
  port: number;
  domain: string;
  /** Events a second once ramped up. */
  rate: number;
  rampMs: number;
  steadyMs: number;
  floodMs: number;
  /** Connections of the visitors' traffic: at most this many events are answered at once. */
  connections: number;
  floodConnections: number;
  /** Visitors active at once: each sends about rate / visitors events a second. */
  visitors: number;
};

export const phases = ['ramp', 'steady', 'flood'] as const;
export type Phase = (typeof phases)[number];

export type PhaseReport = {
  phase: Phase;
  ms: number;
  /** Events due by the schedule. */
  offered: number;
  sent: number;
  /** Events left out because every connection was busy and a second's worth already waited. */
  dropped: number;
  statuses: Record<string, number>;
  /** Answer time of the events answered 204 (stored), ms; null when none was. */
  p50: number | null;
  p99: number | null;
  max: number | null;
};

export type LoadReport = {
  phases: PhaseReport[];
  flood: { address: string; sent: number; statuses: Record<string, number>; withoutRetryAfter: number };
  /** Page views answered 204, the flood's included: what `analytics_totals` should hold. */
  viewsStored: number;
  /** The load generator's own CPU time over its run, percent of one core. */
  cpuPercent: number;
};

export type LoadMessage = { phase: Phase } | { report: LoadReport };

const FLOOD_ADDRESS = '203.0.113.7';
const TICK_MS = 5;

/** Answer times, kept in a growing typed array (a million numbers take 8 MB). */
class Times {
  private values = new Float64Array(1 << 16);
  private n = 0;
  add(ms: number): void {
    if (this.n === this.values.length) {
      const next = new Float64Array(this.values.length * 2);
      next.set(this.values);
      this.values = next;
    }
    this.values[this.n++] = ms;
  }
  sorted(): Float64Array {
    return this.values.slice(0, this.n).sort();
  }
}

/** A queue whose `shift` does not move the items behind it. */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;
  get size(): number {
    return this.items.length - this.head;
  }
  push(item: T): void {
    this.items.push(item);
  }
  shift(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head++];
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

async function run(plan: LoadPlan): Promise<LoadReport> {
  const visitors = createVisitors(plan.domain, plan.visitors);
  const head = `POST /e HTTP/1.1\r\nHost: ${plan.host}:${plan.port}\r\nContent-Type: text/plain;charset=UTF-8\r\nOrigin: https://${plan.domain}\r\nAccept: */*\r\nAccept-Language: en-US,en;q=0.9\r\n`;
  const request = (address: string, userAgent: string, body: string) =>
    `${head}User-Agent: ${userAgent}\r\nX-Forwarded-For: ${address}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

  const connections = Array.from(
    { length: plan.connections },
    () => new KeepAliveConnection(plan.host, plan.port),
  );
  await Promise.all(connections.map((c) => c.connect()));
  const idle = [...connections];
  /** Events due while every connection was busy, sent as connections come free. */
  const waiting = new Fifo<{ text: string; isView: boolean }>();

  const reports = new Map<Phase, PhaseReport & { times: Times }>();
  for (const phase of phases)
    reports.set(phase, {
      phase,
      ms: 0,
      offered: 0,
      sent: 0,
      dropped: 0,
      statuses: {},
      p50: null,
      p99: null,
      max: null,
      times: new Times(),
    });
  let phase: Phase = 'ramp';
  let viewsStored = 0;
  const count = (statuses: Record<string, number>, status: number) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
  };

  const send = (connection: KeepAliveConnection, text: string, isView: boolean) => {
    const report = reports.get(phase)!;
    report.sent++;
    connection.send(text, (status, ms) => {
      count(report.statuses, status);
      if (status === 204) {
        report.times.add(ms);
        if (isView) viewsStored++;
      }
      const next = waiting.shift();
      if (next) send(connection, next.text, next.isView);
      else idle.push(connection);
    });
  };

  const cpuBefore = process.cpuUsage();
  const began = performance.now();
  const durations: Record<Phase, number> = { ramp: plan.rampMs, steady: plan.steadyMs, flood: plan.floodMs };
  const steadyAt = plan.rampMs;
  const floodAt = steadyAt + plan.steadyMs;
  const endAt = floodAt + plan.floodMs;
  let stopped = false;
  /** Events due from the start to `t` ms: a linear ramp, then the full rate. */
  const dueBy = (t: number) =>
    t < plan.rampMs
      ? (plan.rate * t * t) / (2 * plan.rampMs * 1000)
      : (plan.rate * plan.rampMs) / 2000 + (plan.rate * (t - plan.rampMs)) / 1000;
  let offered = 0;
  const flood = {
    address: FLOOD_ADDRESS,
    sent: 0,
    statuses: {} as Record<string, number>,
    withoutRetryAfter: 0,
  };
  const floodConnections: KeepAliveConnection[] = [];

  const startFlood = () => {
    const ua =
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
    const text = request(
      FLOOD_ADDRESS,
      ua,
      JSON.stringify({ k: 'v', d: plan.domain, u: `https://${plan.domain}/` }),
    );
    for (let i = 0; i < plan.floodConnections; i++) {
      const connection = new KeepAliveConnection(plan.host, plan.port);
      floodConnections.push(connection);
      const again = () => {
        if (stopped) return;
        flood.sent++;
        connection.send(text, (status, _ms, retryAfter) => {
          count(flood.statuses, status);
          if (status === 204) viewsStored++;
          if (status === 429 && retryAfter === null) flood.withoutRetryAfter++;
          again();
        });
      };
      again();
    }
  };

  await new Promise<void>((resolve) => {
    process.send?.({ phase } satisfies LoadMessage);
    const timer = setInterval(() => {
      const t = performance.now() - began;
      if (t >= endAt) {
        stopped = true;
        clearInterval(timer);
        resolve();
        return;
      }
      const next: Phase = t >= floodAt ? 'flood' : t >= steadyAt ? 'steady' : 'ramp';
      if (next !== phase) {
        phase = next;
        process.send?.({ phase } satisfies LoadMessage);
        if (phase === 'flood') startFlood();
      }
      const report = reports.get(phase)!;
      const due = Math.floor(dueBy(t));
      for (; offered < due; offered++) {
        report.offered++;
        const { visitor, body, kind } = visitors.next();
        const text = request(visitor.address, visitor.userAgent, body);
        const connection = idle.pop();
        if (connection) send(connection, text, kind === 'v');
        else if (waiting.size < plan.rate) waiting.push({ text, isView: kind === 'v' });
        else report.dropped++;
      }
    }, TICK_MS);
  });

  // What was sent is answered (or fails) before the report; what still waits is not sent.
  reports.get(phase)!.dropped += waiting.size;
  waiting.clear();
  const all = [...connections, ...floodConnections];
  const settleBy = performance.now() + 30_000;
  while (all.some((c) => c.busy) && performance.now() < settleBy) await new Promise((r) => setTimeout(r, 20));
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = performance.now() - began;
  for (const c of all) c.close();

  return {
    phases: [...reports.values()].map(({ times, ...report }) => {
      const sorted = times.sorted();
      return {
        ...report,
        ms: durations[report.phase],
        p50: quantile(sorted, 0.5),
        p99: quantile(sorted, 0.99),
        max: sorted.at(-1) ?? null,
      };
    }),
    flood,
    viewsStored,
    cpuPercent: ((cpu.user + cpu.system) / 1000 / wallMs) * 100,
  };
}

const report = await run(JSON.parse(process.argv[2]!) as LoadPlan);
process.send?.({ report } satisfies LoadMessage, () => process.exit(0));
