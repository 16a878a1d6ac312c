import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { CheckDetail, Created, PingUrl } from '../../protocol/reads.ts';
import { FakeClock } from '../../server/clock.ts';
import { createTestServer, type TestServer } from '../../server/testing.ts';
import {
  artifactPath,
  callApi,
  createAdmin,
  ensurePanelBuilt,
  launchChromium,
  listenOnLoopback,
  runFor,
  startTarget,
  type Target,
  withSignedInPage,
} from './harness.ts';

/**
 * The check page and the overview as a viewer in Kolkata (UTC+5:30) sees them. The server runs in this
 * process on a fake clock, so that minutes and a two-hour stop take milliseconds; its checks reach a
 * real loopback target, and Chromium's clock is set to the server's. The story: a check runs for
 * 5 minutes from 09:00 UTC, mon is stopped for 2 hours, the check runs again, fails 6 times and passes
 * once (recovering); a heartbeat made at 09:00 was never pinged.
 */

const T0 = Date.UTC(2026, 0, 1, 9, 0);
const MIN = 60_000;
const zone = 'Asia/Kolkata';
const setupToken = 'setup-token-for-the-check-page';
const admin = { email: 'admin@example.com', password: 'correct horse battery staple' };

let target: Target;
let browser: Browser;
let server: TestServer;
let clock: FakeClock;
let base = '';
let session: { name: string; value: string };
let checkId = '';
let beatId = '';
/** When mon was stopped and started again. */
const stoppedAt = T0 + 5 * MIN;
const restartedAt = T0 + 125 * MIN;

/** A time as en-GB in Kolkata, as the browser shows it. */
const local = (ms: number, options: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: zone, ...options }).format(ms);

async function startServer(at: number, dataDir?: string): Promise<void> {
  clock = new FakeClock(at);
  server = await createTestServer({
    clock,
    env: { MON_SETUP_TOKEN: setupToken },
    ...(dataDir ? { dataDir } : {}),
  });
  base = await listenOnLoopback(server.app);
}

const run = (ms: number) => runFor(server, clock, ms);
const api = <T>(method: string, path: string, body?: unknown) =>
  callApi<T>(base, session, method, path, body);

before(async () => {
  await ensurePanelBuilt();
  [target, browser] = await Promise.all([startTarget(), launchChromium()]);
  await startServer(T0);
  session = await createAdmin(base, setupToken, admin);
  const check = { name: 'api', service: 'shop', kind: 'http', target: target.url, everyMs: 10_000 };
  checkId = (await api<Created>('POST', '/checks', { ...check, timeoutMs: 10_000 })).id;
  const nightly = {
    name: 'nightly',
    service: 'shop',
    kind: 'heartbeat',
    everyMs: 60 * MIN,
    graceMs: 5 * MIN,
  };
  beatId = (await api<Created>('POST', '/checks', nightly)).id;
  await run(5 * MIN);
  await server.close();

  // Two hours later mon starts again on the same data: the heartbeat's deadline (10:05) has passed.
  await startServer(restartedAt, server.dataDir);
  await run(2 * MIN);
  target.setFailing(true);
  await run(60_000);
  target.setFailing(false);
  await run(10_000);
});

after(async () => {
  await browser?.close();
  await target?.close();
  await server?.dispose();
});

const withPage = (name: string, fn: (page: Page) => Promise<void>) =>
  withSignedInPage(
    { browser, base, session, now: clock.now(), context: { locale: 'en-GB', timezoneId: zone } },
    name,
    fn,
  );

test('a recovering check says so, and when it counts as up, on its page and in the overview', async () => {
  const detail = await api<CheckDetail>('GET', `/checks/${checkId}/detail`);
  assert.equal(detail.check.status, 'down');
  const upAt = detail.check.recovering!.upAt;
  const when = `counts as up at ${local(upAt, { timeStyle: 'medium' })} if runs keep passing`;
  await withPage('recovering', async (page) => {
    await page.goto(`${base}/checks/${checkId}`);
    const badge = page.locator('h1 .status');
    await badge.waitFor();
    assert.equal(await badge.getAttribute('data-recovering'), 'true');
    assert.match(String(await badge.textContent()), /Recovering/);
    assert.match(String(await page.getByTestId('recovering').textContent()), new RegExp(when));
    await page.screenshot({ path: artifactPath('20-check-recovering.png'), fullPage: true });

    await page.goto(base);
    const row = page.locator('li[data-check="api"]');
    await row.locator('.status[data-recovering]').waitFor();
    assert.match(String(await row.textContent()), new RegExp(when));
    await page.screenshot({ path: artifactPath('21-overview-recovering.png'), fullPage: true });
  });
});

test('the time mon was stopped is no data in the run bars and the uptime, which say what they measured', async () => {
  await withPage('no-data', async (page) => {
    await page.goto(`${base}/checks/${checkId}`);
    const gap = page.locator('.beat[data-status="nodata"]');
    await gap.waitFor();
    assert.equal(await gap.count(), 1);
    const title = String(await gap.getAttribute('title'));
    for (const at of [stoppedAt, restartedAt])
      assert.ok(title.includes(local(at, { timeStyle: 'short' })), title);
    const around = await gap.evaluate((bar) => [
      bar.previousElementSibling?.getAttribute('data-status'),
      bar.nextElementSibling?.getAttribute('data-status'),
    ]);
    assert.deepEqual(around, ['up', 'up'], 'between the runs before the stop and after it');

    // Made at 14:30 Kolkata time today: every window says since when, and the two hours without data.
    for (const label of ['Uptime 24 h', 'Uptime 30 d', 'Uptime 365 d']) {
      const note = String(
        await page.locator('.stat').filter({ hasText: label }).locator('.note').textContent(),
      );
      assert.equal(note, `since ${local(T0, { timeStyle: 'medium' })} · 2 h without data`, label);
    }
    await page.screenshot({ path: artifactPath('22-check-no-data.png'), fullPage: true });
  });
});

test('history folds repeated failures into one row that opens to each run', async () => {
  await withPage('history', async (page) => {
    await page.goto(`${base}/checks/${checkId}`);
    const history = page.getByTestId('history');
    await history.waitFor();
    // Six failed runs: the first two (the second made it down), the change, then four more.
    const folds = history.locator('tr.fold');
    assert.deepEqual(await folds.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-fold'))), [
      '4',
      '2',
    ]);
    const button = history.getByRole('button', { name: '4 failed runs' });
    assert.equal(await button.getAttribute('aria-expanded'), 'false');
    assert.equal(await history.locator('tr.folded').count(), 0);
    assert.match(String(await folds.first().locator('td').first().textContent()), /^.+–.+$/);
    await button.click();
    await history.locator('tr.folded').nth(3).waitFor();
    assert.equal(await button.getAttribute('aria-expanded'), 'true');
    assert.equal(await history.locator('tr.folded').count(), 4);
    await page.screenshot({ path: artifactPath('23-history-folded.png'), fullPage: true });
    await button.click();
    await history.locator('tr.folded').first().waitFor({ state: 'detached' });
    assert.equal(await button.getAttribute('aria-expanded'), 'false');
  });
});

test('heartbeat times show in the viewer time zone; a heartbeat never pinged says so', async () => {
  // Expected at 10:00 UTC, late at 10:05: shown as 15:30, never as the UTC time.
  const expected = local(T0 + 60 * MIN, { timeStyle: 'short' });
  await withPage('heartbeat-times', async (page) => {
    await page.goto(`${base}/checks/${beatId}`);
    await page.getByRole('heading', { name: 'Heartbeat' }).waitFor();
    const lastPing = page.locator('dt:text-is("Last ping") + dd');
    assert.equal(await lastPing.textContent(), 'never pinged');
    await page.getByTestId('history').waitFor();
    const text = String(await page.locator('main').textContent());
    assert.ok(!text.includes('since never'), text);
    assert.ok(!/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text), 'no ISO UTC time on the page');
    assert.ok(
      text.includes(
        `never pinged; expected by ${local(T0 + 60 * MIN, { dateStyle: 'medium', timeStyle: 'short' })}`,
      ),
    );
    assert.ok(text.includes(expected));
    await page.screenshot({ path: artifactPath('24-heartbeat-never-pinged.png'), fullPage: true });

    // A ping now: its time shows in Kolkata, not in UTC.
    const { url } = await api<PingUrl>('POST', `/checks/${beatId}/ping-url`);
    assert.equal((await fetch(url)).status, 200);
    const pingedAt = clock.now();
    await page.reload();
    await lastPing.waitFor();
    const shown = String(await lastPing.textContent());
    assert.ok(shown.startsWith(local(pingedAt, { timeStyle: 'medium' })), shown);
  });
});

test('a new ping URL asks first; cancelling keeps the old URL working', async () => {
  const { url: old } = await api<PingUrl>('POST', `/checks/${beatId}/ping-url`);
  await withPage('ping-url', async (page) => {
    let made = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/ping-url')) made++;
    });
    await page.goto(`${base}/checks/${beatId}`);
    await page.getByRole('button', { name: 'Make a new ping URL…' }).click();
    const question = page.getByRole('group', { name: /^Make a new ping URL\?/ });
    assert.match(String(await question.textContent()), /current URL stops working at once: cron jobs/);
    await page.screenshot({ path: artifactPath('25-ping-url-confirm.png'), fullPage: true });
    await question.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Make a new ping URL…' }).waitFor();
    assert.equal(made, 0, 'nothing was sent');
    assert.equal((await fetch(old)).status, 200, 'the old URL still works');

    await page.getByRole('button', { name: 'Make a new ping URL…' }).click();
    await page.getByRole('button', { name: 'Make a new URL' }).click();
    const fresh = await page.getByLabel('Ping URL', { exact: true }).inputValue();
    assert.notEqual(fresh, old);
    assert.equal((await fetch(old)).status, 404);
    assert.equal((await fetch(fresh)).status, 200);
  });

  // A heartbeat without a URL gets its first one at once: there is nothing to break.
  const weekly = { name: 'weekly', service: 'shop', kind: 'heartbeat', everyMs: 7 * 24 * 60 * MIN };
  const { id } = await api<Created>('POST', '/checks', weekly);
  await withPage('first-ping-url', async (page) => {
    await page.goto(`${base}/checks/${id}`);
    await page.getByRole('button', { name: 'Make a ping URL' }).click();
    assert.match(await page.getByLabel('Ping URL', { exact: true }).inputValue(), /\/ping\/btp_[0-9a-f]+$/);
  });
});
