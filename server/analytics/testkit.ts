import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Principal } from '../auth/access.ts';
import { FakeClock } from '../clock.ts';
import type { Log } from '../log.ts';
import { createTestServer, tempDir } from '../testing.ts';
import type { TrackerItem } from './types.ts';

/** User agents of real browsers, as they send them. */
export const agents = {
  chromeWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  safariIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  firefoxAndroid: 'Mozilla/5.0 (Android 14; Mobile; rv:127.0) Gecko/127.0 Firefox/127.0',
  safariIpad:
    'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  headlessChrome:
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
} as const;

/** A public address in Great Britain, in the bundled country database. */
export const BRITISH_ADDRESS = '81.2.69.160';

export type Sent = {
  status: number;
  headers: Record<string, unknown>;
  body: Record<string, unknown> | null;
};

/**
 * A whole server that knows the site `shop.example` (service `shop`) from mon.toml, on a fake clock,
 * whose tracker storage records the items it commits instead of writing rows (storage is tested on
 * its own). `send` posts one event the way `/b.js` does.
 */
export async function trackerServer(options: { toml?: string; maxWaitingEvents?: number; log?: Log } = {}) {
  const work = tempDir();
  const configPath = join(work.dir, 'mon.toml');
  // `toml` comes first: top-level keys such as `trusted_proxies`.
  writeFileSync(configPath, `${options.toml ?? ''}[[service]]\nname = "shop"\nsites = ["shop.example"]\n`);
  const clock = new FakeClock(Date.UTC(2026, 2, 1, 12));
  const stored: TrackerItem[] = [];
  const reader: Principal = { kind: 'token', tokenId: 't1', scope: 'read', label: 'test' };
  const server = await createTestServer({
    configPath,
    clock,
    // API reads come from a read token; `/e` needs no credentials, and gets none.
    authenticate: async (request) => (request.url.startsWith('/api/') ? reader : null),
    ...(options.log ? { log: options.log } : {}),
    analytics: {
      ...(options.maxWaitingEvents ? { maxWaitingEvents: options.maxWaitingEvents } : {}),
      applyItems: (tx, items) => tx.afterCommit(() => stored.push(...items)),
    },
  });
  const send = async (
    event: unknown,
    how: { agent?: string | null; address?: string; headers?: Record<string, string>; raw?: string } = {},
  ): Promise<Sent> => {
    const agent = how.agent === undefined ? agents.chromeWindows : how.agent;
    const response = await server.app.inject({
      method: 'POST',
      url: '/e',
      remoteAddress: how.address ?? BRITISH_ADDRESS,
      headers: {
        'content-type': 'text/plain;charset=UTF-8',
        ...(agent === null ? {} : { 'user-agent': agent }),
        ...how.headers,
      },
      payload: how.raw ?? JSON.stringify(event),
    });
    return {
      status: response.statusCode,
      headers: response.headers,
      body: response.body ? (JSON.parse(response.body) as Record<string, unknown>) : null,
    };
  };
  const counter = async (name: 'ingestAccepted' | 'ingestRejected', label: string): Promise<number> => {
    const { values } = await server.deps.metrics[name].get();
    return values.find((v) => Object.values(v.labels).includes(label))?.value ?? 0;
  };
  /** A GET of the JSON API as a read token. */
  const read = async (url: string) => JSON.parse((await server.app.inject({ method: 'GET', url })).body);
  return {
    server,
    clock,
    stored,
    send,
    counter,
    read,
    async dispose() {
      await server.dispose();
      work.remove();
    },
  };
}

/** A page view of `shop.example`. */
export const view = (extra: Record<string, unknown> = {}) => ({
  k: 'v',
  d: 'shop.example',
  u: 'https://shop.example/pricing',
  ...extra,
});
