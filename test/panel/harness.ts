import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { FakeClock } from '../../server/clock.ts';
import type { HostsOptions } from '../../server/hosts/feature.ts';
import { createTestServer, type TestServer } from '../../server/testing.ts';

/** Real processes for the panel's browser tests and benchmark: the server, a target, Chromium. */

export const repoRoot = join(import.meta.dirname, '..', '..');
export const artifacts = join(repoRoot, 'test-artifacts', 'panel');
export const chromiumPath = process.env.MON_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Builds the panel when panel/dist is missing or older than a source file, so tests see the code as it
 * is. Test files run in parallel processes: one builds while the others wait for it (a build empties
 * panel/dist first, so a page served meanwhile would be "not built").
 */
export async function ensurePanelBuilt(): Promise<void> {
  const index = join(repoRoot, 'panel', 'dist', 'index.html');
  const fresh = () => existsSync(index) && newestSource(join(repoRoot, 'panel')) <= statSync(index).mtimeMs;
  if (fresh()) return;
  const lock = join(repoRoot, 'panel', '.build-lock');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock left by a killed run is older than any build takes.
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > 120_000) rmSync(lock, { force: true, recursive: true });
      await sleep(100);
    }
  }
  try {
    if (fresh()) return;
    const vite = await import('vite');
    const root = join(repoRoot, 'panel');
    await vite.build({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'warn' });
  } finally {
    rmSync(lock, { force: true, recursive: true });
  }
}

function newestSource(panelDir: string): number {
  const files = [join(panelDir, 'index.html'), join(panelDir, 'vite.config.ts')];
  for (const entry of readdirSync(join(panelDir, 'src'), { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.push(join(entry.parentPath, entry.name));
  }
  return Math.max(...files.filter((f) => existsSync(f)).map((f) => statSync(f).mtimeMs));
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export type MonProcess = {
  base: string;
  setupToken: string;
  dataDir: string;
  log: () => string;
  stop(): Promise<void>;
};

/** `node server/main.ts` on a random loopback port with a temporary data directory. */
export async function startMon(
  options: { env?: Record<string, string>; files?: Record<string, string> } = {},
): Promise<MonProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mon-panel-'));
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(dataDir, name), text);
  const setupToken = `setup-${Math.random().toString(36).slice(2)}`;
  let output = '';
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child: ChildProcess = spawn(process.execPath, [join(repoRoot, 'server', 'main.ts')], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? '',
        MON_LISTEN: `127.0.0.1:${port}`,
        MON_DATA_DIR: dataDir,
        MON_SETUP_TOKEN: setupToken,
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const base = `http://127.0.0.1:${port}`;
    let up = false;
    for (let i = 0; i < 150 && child.exitCode === null; i++) {
      try {
        if ((await fetch(`${base}/healthz`)).ok) {
          up = true;
          break;
        }
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const stop = async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 6000))]);
      }
      rmSync(dataDir, { recursive: true, force: true });
    };
    if (up) return { base, setupToken, dataDir, log: () => output, stop };
    child.kill('SIGKILL');
    await exited;
    // The port may have been taken between probing and listening: try another one.
    if (attempt >= 2) throw new Error(`mon did not start:\n${output}`);
  }
}

/**
 * A server made in this process (`createTestServer`, so that a test drives its fake clock) listening on
 * a random loopback port; returns its base URL. Closing the server stops listening.
 */
export async function listenOnLoopback(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** Creates the first account through the API and returns its session cookie for a browser context. */
export async function createAdmin(
  base: string,
  setupToken: string,
  who: { email: string; password: string },
): Promise<{ name: string; value: string; url: string }> {
  const response = await fetch(`${base}/api/v1/auth/setup`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: base },
    body: JSON.stringify({ token: setupToken, ...who }),
  });
  if (!response.ok) throw new Error(`setup failed: ${response.status} ${await response.text()}`);
  return { ...sessionOf(response), url: base };
}

/** Signs an existing account in through the API and returns its session cookie. */
export async function signIn(
  base: string,
  who: { email: string; password: string },
): Promise<{ name: string; value: string }> {
  const response = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: base },
    body: JSON.stringify(who),
  });
  assert.ok(response.ok, `sign-in: ${response.status} ${await response.text()}`);
  return sessionOf(response);
}

/** The session cookie an answer sets. */
function sessionOf(response: Response): { name: string; value: string } {
  const [name, value] = (response.headers.get('set-cookie') ?? '').split(';')[0]!.split('=') as [
    string,
    string,
  ];
  return { name, value };
}

/**
 * A call of the API from outside the browser, signed in with `session` (a cookie from createAdmin):
 * the answer's JSON, or the test fails naming the call and the answer.
 */
export async function callApi<T>(
  base: string,
  session: { name: string; value: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: {
      Cookie: `${session.name}=${session.value}`,
      Origin: base,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Waits for the check runs in flight of a server made in this process to end and be stored. */
export async function settleRuns(server: TestServer): Promise<void> {
  const engine = server.checks.engine;
  for (let i = 0; i < 1000 && engine.all().some((e) => e.running); i++) await sleep(2);
  await engine.flush();
}

/** Moves the fake clock on in steps of 10 s; each step's runs reach their targets and are stored. */
export async function runFor(server: TestServer, clock: FakeClock, ms: number): Promise<void> {
  await settleRuns(server);
  for (let left = ms; left > 0; left -= 10_000) {
    await clock.advance(Math.min(10_000, left));
    await settleRuns(server);
  }
}

export type Target = { url: string; setFailing(failing: boolean): void; close(): Promise<void> };

/** A loopback HTTP server the checks watch; `setFailing(true)` makes it answer 500. */
export async function startTarget(): Promise<Target> {
  let failing = false;
  const server: Server = createServer((_req, res) => {
    res.writeHead(failing ? 500 : 200, { 'Content-Type': 'text/plain' });
    res.end(failing ? 'broken' : 'ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/health`,
    setFailing: (value) => {
      failing = value;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Debian's Chromium, headless; never a downloaded browser. `args` are more command-line switches. */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-gpu',
      ...args,
    ],
  });
}

export function artifactPath(name: string): string {
  mkdirSync(artifacts, { recursive: true });
  return join(artifacts, name);
}

/** What a signed-in page needs: the browser, the server's address, a session cookie and its time. */
export type SignedIn = {
  browser: Browser;
  base: string;
  session: { name: string; value: string };
  /** The browser's clock is fixed at the server's (fake) time. */
  now: number;
  context?: BrowserContextOptions;
};

/**
 * Runs `fn` on a fresh signed-in page and closes it; a failure leaves a screenshot named after `name`,
 * and an uncaught error in the page fails the test.
 */
export async function withSignedInPage(
  at: SignedIn,
  name: string,
  fn: (page: Page) => Promise<void>,
): Promise<void> {
  const failures: string[] = [];
  const context = await at.browser.newContext({
    viewport: { width: 1280, height: 900 },
    colorScheme: 'light',
    ...at.context,
  });
  try {
    await context.addCookies([{ ...at.session, url: at.base }]);
    await context.clock.setFixedTime(at.now);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (error) => failures.push(String(error)));
    try {
      await fn(page);
    } catch (error) {
      await page.screenshot({ path: artifactPath(`failure-${name}.png`), fullPage: true }).catch(() => {});
      throw error;
    }
  } finally {
    await context.close();
  }
  assert.deepEqual(failures, []);
}

type Session = { name: string; value: string };

/**
 * What the panel tests that drive time share: a server made in this process on a fake clock at `at`,
 * listening on loopback, its first admin signed in, a loopback target for its checks, and Chromium.
 */
export type PanelWorld = {
  browser: Browser;
  target: Target;
  server: TestServer;
  clock: FakeClock;
  base: string;
  /** The admin's session cookie. */
  session: Session;
  /** A call of the API as the admin (callApi). */
  api<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** Moves the clock on with the checks running (runFor). */
  run(ms: number): Promise<void>;
  /** A signed-in page at the server's time (withSignedInPage), as the admin unless `as` says. */
  page(name: string, fn: (page: Page) => Promise<void>, as?: Session): Promise<void>;
  close(): Promise<void>;
};

export async function startPanelWorld(options: {
  at: number;
  setupToken: string;
  admin: { email: string; password: string };
  /** The hosts' options (an agent file of the test's own). */
  hosts?: HostsOptions;
}): Promise<PanelWorld> {
  await ensurePanelBuilt();
  const [target, browser] = await Promise.all([startTarget(), launchChromium()]);
  const clock = new FakeClock(options.at);
  const server = await createTestServer({
    clock,
    env: { MON_SETUP_TOKEN: options.setupToken },
    ...(options.hosts && { hosts: options.hosts }),
  });
  const base = await listenOnLoopback(server.app);
  const session = await createAdmin(base, options.setupToken, options.admin);
  return {
    browser,
    target,
    server,
    clock,
    base,
    session,
    api: (method, path, body) => callApi(base, session, method, path, body),
    run: (ms) => runFor(server, clock, ms),
    page: (name, fn, as = session) =>
      withSignedInPage({ browser, base, session: as, now: clock.now() }, name, fn),
    async close() {
      await browser.close();
      await target.close();
      await server.dispose();
    },
  };
}
