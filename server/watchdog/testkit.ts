import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WatchdogRead } from '../../protocol/notify.ts';
import type { Principal } from '../auth/access.ts';
import { FakeClock } from '../clock.ts';
import type { Log } from '../log.ts';
import { createTestServer, type TestServer, within } from '../testing.ts';

/** A request that reached a receiver. */
export type Received = { method: string; path: string; headers: IncomingHttpHeaders; body: string };

export type Receiver = {
  /** `http://127.0.0.1:<port><path>`. */
  url(path?: string): string;
  /** `127.0.0.1:<port>`. */
  host: string;
  requests: Received[];
  /** The status it answers from now on (200 at first); `body` makes the answer's text from the request. */
  answer(status: number, body?: (request: Received) => string): void;
  /** Holds answers back until the returned function is called. */
  hold(): () => void;
  /** Waits (real time, at most 5 s) until `count` requests have arrived. */
  arrived(count: number): Promise<void>;
  close(): Promise<void>;
};

/** A real HTTP server on loopback standing in for an edge worker or a ping URL of another service. */
export async function startReceiver(): Promise<Receiver> {
  let status = 200;
  let text: (request: Received) => string = () => 'OK';
  const requests: Received[] = [];
  let gate: Promise<void> = Promise.resolve();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      const [answerStatus, answerText] = [status, text(received)];
      void gate.then(() => {
        res.writeHead(answerStatus, { 'content-type': 'text/plain' });
        res.end(answerText);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/') => `http://127.0.0.1:${port}${path}`,
    host: `127.0.0.1:${port}`,
    requests,
    answer(next, body = () => (next < 300 ? 'OK' : 'no')) {
      status = next;
      text = body;
    },
    hold() {
      let release = () => {};
      gate = new Promise((resolve) => {
        release = resolve;
      });
      return release;
    },
    arrived: (count) =>
      within(
        5000,
        `${count} request(s) at the receiver, got ${requests.length}`,
        () => requests.length >= count,
      ),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

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
