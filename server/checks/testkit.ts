import type { CheckBody } from '../../protocol/check.ts';
import type { Runner, RunOutcome } from '../../runners/run.ts';
import type { Principal } from '../auth/access.ts';
import { FakeClock } from '../clock.ts';
import { type ConfigService, type LiveConfig, managedNames, staticConfig } from '../config/service.ts';
import { newHostToken, putHostToken } from '../hosts/store.ts';
import type { Log } from '../log.ts';
import type { ServerOptions } from '../start.ts';
import { createTestServer, type TestServer } from '../testing.ts';
import { hashToken } from './ping-tokens.ts';

/** A test server signed in as an admin token, on a fake clock, with a scripted runner for http checks. */
export async function checkServer(
  options: {
    config?: ConfigService;
    store?: ServerOptions['store'];
    clock?: FakeClock;
    dataDir?: string;
    notify?: ServerOptions['notify'];
    log?: Log;
  } = {},
) {
  const clock = options.clock ?? new FakeClock(Date.UTC(2026, 0, 1));
  const script = {
    outcome: { status: 'up', latencyMs: 120, detail: '200 OK' } as RunOutcome,
    runs: 0,
    /** While set, runs wait for it: a run in flight. */
    gate: null as Promise<void> | null,
  };
  const http: Runner = async () => {
    script.runs++;
    if (script.gate) await script.gate;
    return script.outcome;
  };
  const admin: Principal = { kind: 'token', tokenId: 't1', scope: 'write', label: 'test' };
  const server: TestServer = await createTestServer({
    clock,
    authenticate: async () => admin,
    checks: { runners: { http, tcp: http } },
    ...(options.config ? { config: options.config } : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.notify ? { notify: options.notify } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const engine = server.checks.engine;
  const inject = async (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD',
    url: string,
    payload?: unknown,
  ) => {
    const res = await server.app.inject({
      method,
      url,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: res.statusCode, body: res.body ? safeJson(res.body) : null, text: res.body };
  };
  return { server, clock, script, engine, inject };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** JSON bodies in tests. */
// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies by field
export type Any = Record<string, any>;

/** A config service whose value the test replaces, as a reload of mon.toml would. */
export function liveConfig(initial: Partial<LiveConfig>) {
  let value = staticConfig(initial).current();
  const listeners = new Set<(c: LiveConfig) => void>();
  const service: ConfigService = {
    ...staticConfig(initial),
    current: () => value,
    onChange: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
  return {
    service,
    reload(next: Partial<LiveConfig>) {
      value = { ...value, ...next, managed: managedNames({ ...value, ...next }) };
      for (const l of listeners) l(value);
    },
  };
}

/** A `[[check]]` of mon.toml as the loader gives it. */
export const fileCheck = (index: number, body: CheckBody, pingToken: string | null = null) => ({
  index,
  body,
  pingToken,
  pingTokenHash: pingToken === null ? null : hashToken(pingToken),
});

/** Adds a host as an admin's `POST /api/v1/hosts` does (a row with a token), so that a check's `from` may name it. */
export async function addHost(server: TestServer, name: string): Promise<void> {
  await server.deps.store.writer.run((db) => {
    putHostToken(db, name, newHostToken().hash, server.deps.clock.now(), 'admin');
  });
}
