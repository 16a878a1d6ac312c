import { writeFileSync } from 'node:fs';
import type { OutgoingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { type AuthTestServer, authTestServer, browser } from '../auth/test-helpers.ts';
import { FakeClock } from '../clock.ts';
import type { Log } from '../log.ts';
import { tempDir } from '../testing.ts';

/** A server with a mon.toml, and every kind of caller of the channel and settings routes, for tests. */

export type Caller = 'none' | 'admin' | 'viewer' | 'write' | 'read';
// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies by field
export type Answer = { status: number; headers: OutgoingHttpHeaders; body: any };

export type ChannelServer = {
  server: AuthTestServer;
  clock: FakeClock;
  configPath: string;
  call(
    caller: Caller,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    body?: unknown,
  ): Promise<Answer>;
  dispose(): Promise<void>;
};

export const T0 = Date.UTC(2026, 0, 1, 9, 0);

export async function channelServer(mon = '', options: { log?: Log } = {}): Promise<ChannelServer> {
  const data = tempDir();
  const configPath = join(data.dir, 'mon.toml');
  writeFileSync(configPath, mon);
  const clock = new FakeClock(T0);
  const server = await authTestServer({ clock, configPath, ...(options.log ? { log: options.log } : {}) });
  const headers: Record<Caller, Record<string, string>> = {
    none: {},
    admin: browser(await server.cookieOf(await server.addUser('admin@example.com', 'admin'))),
    viewer: browser(await server.cookieOf(await server.addUser('viewer@example.com', 'viewer'))),
    write: { authorization: `Bearer ${await server.tokenOf('write')}` },
    read: { authorization: `Bearer ${await server.tokenOf('read')}` },
  };
  return {
    server,
    clock,
    configPath,
    async call(caller, method, url, body) {
      const res = await server.app.inject({
        method,
        url,
        headers: headers[caller],
        ...(body === undefined ? {} : { payload: body as object }),
      });
      return { status: res.statusCode, headers: res.headers, body: res.body ? res.json() : null };
    },
    async dispose() {
      await server.dispose();
      data.remove();
    },
  };
}
