import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { buildApp } from '../../server/app.ts';
import { createTestServer, tempDir } from '../../server/testing.ts';
import { ensurePanelBuilt, launchChromium, type MonProcess, startMon } from './harness.ts';

/**
 * The panel's Content-Security-Policy in Debian's Chromium: the built panel runs under it with no
 * violation (its theme script allowed by hash), inline code not in the built file is refused, and no
 * other page can frame mon.
 */

let mon: MonProcess;
let browser: Browser;

before(async () => {
  await ensurePanelBuilt();
  [mon, browser] = await Promise.all([startMon(), launchChromium()]);
});

after(async () => {
  await browser?.close();
  await mon?.stop();
});

/** A page that records every policy violation and console message; the theme is set to dark beforehand. */
async function watchedPage(): Promise<{
  page: Page;
  violations: () => Promise<string[]>;
  console: string[];
}> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const messages: string[] = [];
  page.on('console', (m) => messages.push(m.text()));
  page.on('pageerror', (e) => messages.push(String(e)));
  await page.addInitScript(() => {
    localStorage.setItem('mon-theme', 'dark');
    const seen: string[] = [];
    (window as unknown as { violations: string[] }).violations = seen;
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  return {
    page,
    violations: () => page.evaluate(() => (window as unknown as { violations: string[] }).violations),
    console: messages,
  };
}

test('the built panel runs under its policy: theme script by hash, setup, overview, live stream', async () => {
  const { page, violations, console } = await watchedPage();
  const response = await page.goto(mon.base);
  const policy = String(response?.headers()['content-security-policy']);
  assert.match(policy, /script-src 'self' 'sha256-[A-Za-z0-9+/]{43}='/);
  assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval/);
  await page.getByRole('heading', { name: 'Welcome to mon' }).waitFor();
  // Only the inline theme script sets data-theme on load: it ran.
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');

  await page.getByLabel('Setup token').fill(mon.setupToken);
  await page.getByLabel('Email').fill('csp@example.com');
  await page.getByLabel('Password').fill('a long enough password');
  const stream = page.waitForRequest((r) => r.url().endsWith('/api/v1/stream'));
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await stream;
  assert.deepEqual(await violations(), []);
  assert.deepEqual(
    console.filter((m) => /Content Security Policy|Refused to/i.test(m)),
    [],
  );
  await page.context().close();
});

test('no other page can frame mon', async () => {
  // Another origin (localhost, not 127.0.0.1) whose page embeds the panel.
  const framing: Server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(`<!doctype html><title>framing</title><iframe src="${mon.base}/"></iframe>`);
  });
  await new Promise<void>((resolve) => framing.listen(0, '127.0.0.1', resolve));
  const { port } = framing.address() as AddressInfo;
  const { page, console } = await watchedPage();
  try {
    const refused = page.waitForEvent('console', (m) => /frame-ancestors 'none'/.test(m.text()));
    await page.goto(`http://localhost:${port}/`);
    await refused;
    const frame = page.frames().find((f) => f !== page.mainFrame());
    assert.ok(frame, 'the iframe exists');
    // The frame holds Chromium's error page, not the panel.
    const panelLoaded = await frame
      .evaluate(() => document.querySelector('#root') !== null)
      .catch(() => false);
    assert.equal(panelLoaded, false);
    assert.ok(console.some((m) => m.includes(mon.base)));
  } finally {
    await page.context().close();
    await new Promise((resolve) => framing.close(resolve));
  }
});

test('inline scripts of the served index run by their hash; inline code not in the file is refused', async () => {
  const panel = tempDir('mon-panel-');
  writeFileSync(
    join(panel.dir, 'index.html'),
    `<!doctype html><html><head><script>window.fromFile = 'ran';</script></head>
<body onload="window.handler = 'ran'"><div id="root"></div></body></html>`,
  );
  const server = await createTestServer();
  const app = buildApp(server.deps, { authenticate: async () => null, features: [], panelDir: panel.dir });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { page, violations } = await watchedPage();
  try {
    await page.goto(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/`);
    await page.waitForFunction(() => (window as unknown as { violations: string[] }).violations.length > 0);
    const ran = await page.evaluate(() => {
      const w = window as unknown as { fromFile?: string; handler?: string };
      return [w.fromFile, w.handler];
    });
    assert.deepEqual(ran, ['ran', undefined]);
    assert.deepEqual(await violations(), ['script-src-attr inline']);
  } finally {
    await page.context().close();
    await app.close();
    await server.dispose();
    panel.remove();
  }
});
