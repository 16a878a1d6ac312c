import type { WatchdogRead } from '../../protocol/notify.ts';
import type { Principal } from '../auth/access.ts';
import { FakeClock } from '../clock.ts';
import type { Log } from '../log.ts';
import { createTestServer, type TestServer } from '../testing.ts';

export const T0 = Date.UTC(2026, 0, 1, 9, 0);

/** A test server on a fake clock, called by a write token unless the test says otherwise. */
export async function watchdogServer(
  options: {
    configPath?: string;
    env?: Record<string, string>;
    dataDir?: string;
    clock?: FakeClock;
    log?: Log;
    caller?: () => Principal | null;
  } = {},
) {
  const clock = options.clock ?? new FakeClock(T0);
  const writer: Principal = { kind: 'token', tokenId: 't1', scope: 'write', label: 'test' };
  const caller = options.caller ?? (() => writer);
  const server: TestServer = await createTestServer({
    clock,
    authenticate: async () => caller(),
    ...(options.configPath ? { configPath: options.configPath } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const inject = async (method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: unknown) => {
    const res = await server.app.inject({
      method,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return {
      status: res.statusCode,
      text: res.body,
      json: () => JSON.parse(res.body) as Record<string, unknown>,
    };
  };
  const read = async (): Promise<WatchdogRead> => {
    const res = await inject('GET', '/watchdog');
    if (res.status !== 200) throw new Error(`GET /watchdog answered ${res.status}: ${res.text}`);
    return res.json() as unknown as WatchdogRead;
  };
  /** Waits (real time) until the read satisfies `condition`, for outcomes stored after a request. */
  const readUntil = async (
    what: string,
    condition: (read: WatchdogRead) => boolean,
  ): Promise<WatchdogRead> => {
    let last = await read();
    const deadline = Date.now() + 5000;
    while (!condition(last)) {
      if (Date.now() > deadline) throw new Error(`not within 5 s: ${what}; read ${JSON.stringify(last)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      last = await read();
    }
    return last;
  };
  return { server, clock, inject, read, readUntil };
}

/** Lets requests that a tick may have started reach a receiver before a test says none came. */
export const quietSpell = () => new Promise((resolve) => setTimeout(resolve, 150));
