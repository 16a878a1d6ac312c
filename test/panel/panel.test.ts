import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  artifactPath,
  ensurePanelBuilt,
  launchChromium,
  type MonProcess,
  startMon,
  startTarget,
  type Target,
} from './harness.ts';

/**
 * The panel end to end: the real server process, a loopback target and Debian's Chromium. Screens are
 * saved under test-artifacts/panel/. The check runs every 10 s (the minimum): going down takes two
 * failed runs, so that step waits up to about 30 s.
 */

const admin = { email: 'admin@example.com', password: 'correct horse battery staple' };
const viewer = { email: 'viewer@example.com', password: 'another long passphrase' };

let mon: MonProcess;
let target: Target;
let browser: Browser;
let checkId = '';

before(async () => {
  await ensurePanelBuilt();
  target = await startTarget();
  const files = { 'mon.toml': fileConfig() };
  [mon, browser] = await Promise.all([startMon({ files }), launchChromium()]);
});

after(async () => {
  await browser?.close();
  await target?.close();
  await mon?.stop();
});

/** A mon.toml with one check: the panel shows it read-only. */
function fileConfig(): string {
  const { host } = new URL(target.url);
  return `[[check]]\nname = "file check"\nservice = "files"\ntcp = "${host}"\nevery = "1m"\n`;
}

/** A fresh browser context (light, 1280 × 860) and page; errors thrown in the page go into `failures`. */
async function openPage(failures: string[]): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: 'light' });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on('pageerror', (error) => failures.push(String(error)));
  return { context, page };
}

async function adminJourney(page: Page): Promise<void> {
  await page.goto(mon.base);
  await page.getByRole('heading', { name: 'Welcome to mon' }).waitFor();
  await page.screenshot({ path: artifactPath('01-setup.png') });
  await page.getByLabel('Setup token').fill(mon.setupToken);
  await page.getByLabel('Email').fill(admin.email);
  await page.getByLabel('Password').fill(admin.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();

  // Sign out and in again with the password.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to mon' }).waitFor();
  await page.screenshot({ path: artifactPath('02-sign-in.png') });
  await signIn(page, admin);

  // A check with a value the server refuses shows the error at its field.
  await page.getByRole('link', { name: 'Add check' }).first().click();
  await page.getByLabel('Name').fill('web home');
  await page.getByLabel('Service', { exact: true }).fill('web');
  await page.getByLabel('URL').fill(target.url);
  await page.getByLabel('Run every').fill('5s');
  await page.getByRole('button', { name: 'Add check' }).click();
  const everyField = page.locator('[data-field="everyMs"]');
  await everyField.locator('.field-error').waitFor();
  assert.match(String(await everyField.locator('.field-error').textContent()), /at least 10 s/);
  assert.equal(await page.getByLabel('Run every').getAttribute('aria-invalid'), 'true');
  await page.screenshot({ path: artifactPath('03-check-form-error.png'), fullPage: true });

  // Fixed, it saves and the check turns up.
  await page.getByLabel('Run every').fill('10s');
  await page.getByRole('button', { name: 'Add check' }).click();
  await page.waitForURL(/\/checks\/[0-9a-f]{16}$/);
  checkId = page.url().split('/').pop()!;
  const checkUrl = page.url();
  await page.locator('h1 [data-status="up"]').waitFor({ timeout: 30_000 });
  await page.locator('.beat[data-status="up"]').first().waitFor();

  // The overview, live: the target fails and the check turns down without a reload.
  await page.getByRole('link', { name: 'Overview' }).first().click();
  const row = page.locator('li[data-check="web home"]');
  await row.locator('[data-status="up"]').waitFor();
  await page.locator('.live[data-state="live"]').waitFor();
  await page.screenshot({ path: artifactPath('04-overview-up.png'), fullPage: true });
  await page.evaluate(() => {
    (window as unknown as { stillHere: boolean }).stillHere = true;
  });
  target.setFailing(true);
  await row.locator('[data-status="down"]').waitFor({ timeout: 60_000 });
  assert.equal(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere), true);
  await page.screenshot({ path: artifactPath('05-overview-down.png'), fullPage: true });

  // The check page shows the runs, uptime, chart and history.
  await page.goto(checkUrl);
  await page.locator('h1 [data-status="down"]').waitFor();
  await page.locator('[data-testid="history"]').waitFor();
  await page.locator('.chart canvas, .chart .empty').first().waitFor();
  await page.screenshot({ path: artifactPath('06-check.png'), fullPage: true });

  // A heartbeat shows its ping URL once, with a copy button.
  await page.goto(`${mon.base}/checks/new?service=web`);
  await page.getByLabel('Kind').selectOption('heartbeat');
  await page.getByLabel('Name').fill('nightly backup');
  await page.getByLabel('Expected every').fill('1d');
  await page.getByRole('button', { name: 'Add check' }).click();
  await page.getByLabel('Ping URL').waitFor();
  assert.match(await page.getByLabel('Ping URL').inputValue(), /\/ping\/btp_[0-9a-f]+$/);
  await page.getByRole('button', { name: 'Copy' }).waitFor();
  await page.screenshot({ path: artifactPath('07-heartbeat.png'), fullPage: true });

  // Users: add a viewer. Tokens: the screen lists and creates.
  await page.getByRole('link', { name: 'Users' }).click();
  await page.locator('#new-user-email').fill(viewer.email);
  await page.locator('#new-user-password').fill(viewer.password);
  await page.getByRole('button', { name: 'Add user' }).click();
  await page.getByRole('cell', { name: viewer.email }).waitFor();
  await page.screenshot({ path: artifactPath('08-users.png'), fullPage: true });
  await page.getByRole('link', { name: 'Tokens' }).click();
  await page.getByLabel('Label').fill('ci');
  await page.getByRole('button', { name: 'Create token' }).click();
  assert.match(await page.getByLabel('New token').inputValue(), /^mon_/);
  await page.screenshot({ path: artifactPath('09-tokens.png'), fullPage: true });

  // A check from mon.toml is read-only, with the reason.
  await page.getByRole('link', { name: 'Overview' }).first().click();

  await page.getByRole('link', { name: 'file check' }).click();
  await page.getByText('This check is defined in mon.toml.').waitFor();
  assert.equal(await page.getByRole('link', { name: 'Edit' }).count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Delete…' }).count(), 0);
  await page.screenshot({ path: artifactPath('10-file-check.png'), fullPage: true });

  // A broken mon.toml: every screen shows its error, live (the reload is announced on the stream).
  writeFileSync(join(mon.dataDir, 'mon.toml'), `${fileConfig()}[[check]]\nname = 1\n`);
  const banner = page.getByText('mon.toml has an error');
  await banner.waitFor({ timeout: 10_000 });
  await page.screenshot({ path: artifactPath('11-config-error.png'), fullPage: true });
  writeFileSync(join(mon.dataDir, 'mon.toml'), fileConfig());

  // Dark theme.
  await page.getByRole('link', { name: 'Overview' }).first().click();
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: artifactPath('12-overview-dark.png'), fullPage: true });
  await page.goto(checkUrl);
  await page.locator('.chart canvas, .chart .empty').first().waitFor();
  await page.screenshot({ path: artifactPath('13-check-dark.png'), fullPage: true });
}

async function signIn(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.goto(mon.base);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}

test('setup, sign-in, a live check, users and a viewer without write controls', {
  timeout: 120_000,
}, async () => {
  const failures: string[] = [];
  const { context, page } = await openPage(failures);

  try {
    await adminJourney(page);
  } catch (error) {
    await page.screenshot({ path: artifactPath('failure-admin.png'), fullPage: true }).catch(() => {});
    throw new Error(`${String(error)}\n--- server log ---\n${mon.log().slice(-3000)}`);
  }
  await context.close();

  // A viewer finds no write controls.
  const checkUrl = `${mon.base}/checks/${checkId}`;
  const { context: viewerContext, page: viewerPage } = await openPage(failures);
  await signIn(viewerPage, viewer);
  await viewerPage.locator('li[data-check="web home"]').waitFor();
  const writeControls = async () =>
    viewerPage
      .getByRole('link', { name: /^(Add check|Add the first check|Edit|Users|Tokens)$/ })
      .or(viewerPage.getByRole('button', { name: /^(Delete…|Delete|Make .*URL|Save changes|Add check)$/ }))
      .count();
  assert.equal(await writeControls(), 0);
  await viewerPage.screenshot({ path: artifactPath('14-viewer-overview.png'), fullPage: true });
  await viewerPage.goto(checkUrl);
  await viewerPage.locator('h1 [data-status]').waitFor();
  await viewerPage.locator('[data-testid="history"]').waitFor();
  assert.equal(await writeControls(), 0);
  await viewerPage.goto(`${mon.base}/services/web`);
  await viewerPage.getByRole('heading', { name: /^web/ }).waitFor();
  assert.equal(await writeControls(), 0);
  await viewerPage.screenshot({ path: artifactPath('15-viewer-service.png'), fullPage: true });
  await viewerContext.close();

  assert.deepEqual(failures, []);
});

/** JSON API calls from the signed-in page: same origin, with its session cookie. */
async function apiCall<T>(page: Page, method: string, path: string, body?: unknown): Promise<T> {
  const result = await page.evaluate(
    async ({ method, path, body }) => {
      const response = await fetch(`/api/v1${path}`, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, text: await response.text() };
    },
    { method, path, body },
  );
  assert.ok(result.status < 300, `${method} ${path}: ${result.status} ${result.text}`);
  return (result.text ? JSON.parse(result.text) : undefined) as T;
}

/** How far the page is wider than the window, in CSS pixels (0 when nothing overflows). */
const overflowX = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

// Runs after the first test, which made the admin account.
test('editing keeps what the form does not show; errors in the form words; confirm; narrow screens', {
  timeout: 60_000,
}, async () => {
  const failures: string[] = [];
  const { context, page } = await openPage(failures);
  try {
    await signIn(page, admin);

    // An HTTP check whose whole body must equal "OK" keeps that assertion through an edit.
    const expect = [{ equals: 'OK' }, { status: 200 }];
    const { id } = await apiCall<{ id: string }>(page, 'POST', '/checks', {
      name: 'body equals',
      service: 'web',
      kind: 'http',
      target: target.url,
      everyMs: 60_000,
      expect,
    });
    await page.goto(`${mon.base}/checks/${id}/edit`);
    assert.equal(await page.getByLabel('Assertion 1 type').inputValue(), 'equals');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(new RegExp(`/checks/${id}$`));
    const saved = await apiCall<{ input: { expect: unknown } }>(page, 'GET', `/checks/${id}`);
    assert.deepEqual(saved.input.expect, expect);

    // An empty response time is "required" at its row, and nothing is sent.
    await page.goto(`${mon.base}/checks/${id}/edit`);
    await page.getByRole('button', { name: 'Add assertion' }).click();
    await page.getByLabel('Assertion 3 type').selectOption('responseTimeBelowMs');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const third = page.locator('[data-field="expect[2]"] .field-error');
    assert.equal(await third.textContent(), 'required');
    assert.equal(await page.getByLabel('Assertion 3 value').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'f-expect-2');
    await page.getByLabel('Assertion 3 value').fill('500');

    // A bad header name shows at the headers, naming the header.
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header 1 name').fill('Bad Name');
    await page.getByLabel('Header 1 value').fill('x');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('[data-field="headers"] .field-error').waitFor();
    assert.match(
      String(await page.locator('[data-field="headers"] .field-error').textContent()),
      /^Bad Name: /,
    );
    await page.getByLabel('Remove header 1').click();

    // Errors use the form's labels, not the API's field names.
    await page.getByLabel('Timeout').fill('2m');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const timeoutError = page.locator('[data-field="timeoutMs"] .field-error');
    await timeoutError.waitFor();
    assert.equal(await timeoutError.textContent(), 'must not exceed “Run every”');
    await page.screenshot({ path: artifactPath('16-check-form-labels.png'), fullPage: true });
    await page.getByLabel('Timeout').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(new RegExp(`/checks/${id}$`));
    const edited = await apiCall<{ input: { expect: unknown } }>(page, 'GET', `/checks/${id}`);
    assert.deepEqual(edited.input.expect, [...expect, { responseTimeBelowMs: 500 }]);

    // Confirm: Escape cancels from either button; focus goes back to "Delete…".
    const deleteButton = page.getByRole('button', { name: 'Delete…' });
    const focusedText = () => page.evaluate(() => document.activeElement?.textContent);
    await deleteButton.click();
    assert.equal(await focusedText(), 'Cancel');
    await page.keyboard.press('Shift+Tab');
    assert.equal(await focusedText(), 'Delete');
    await page.keyboard.press('Escape');
    await deleteButton.waitFor();
    assert.equal(await focusedText(), 'Delete…');
    await deleteButton.click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await deleteButton.waitFor();
    assert.equal(await focusedText(), 'Delete…');

    // A long unbroken name wraps: the service page and the overview stay within the window.
    const long = 'z'.repeat(100);
    const service = 'y'.repeat(100);
    await apiCall(page, 'POST', '/checks', { name: long, service, kind: 'tcp', target: '127.0.0.1:9' });
    await page.goto(`${mon.base}/services/${service}`);
    await page.getByRole('heading', { name: service }).waitFor();
    assert.equal(await overflowX(page), 0);
    const table = page.locator('main table');
    const fits = await table.evaluate((t) => t.scrollWidth <= (t.parentElement as HTMLElement).clientWidth);
    assert.ok(fits, 'the checks table fits its card');
    await page.screenshot({ path: artifactPath('17-long-name-service.png'), fullPage: true });
    await page.goto(mon.base);
    await page.locator(`li[data-check="${long}"]`).waitFor();
    assert.equal(await overflowX(page), 0);
    const head = page.locator('.service-head').filter({ hasText: service });
    assert.ok(await head.evaluate((h) => h.scrollWidth <= h.clientWidth), 'the service header fits');

    // On a phone the top bar wraps instead of widening the page.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ['/checks/new', `/services/${service}`, '/']) {
      await page.goto(`${mon.base}${path}`);
      await page.locator('main h1').waitFor();
      assert.equal(await overflowX(page), 0, `${path} is no wider than the phone`);
    }
    await page.screenshot({ path: artifactPath('18-phone-overview.png'), fullPage: true });
  } catch (error) {
    await page.screenshot({ path: artifactPath('failure-forms.png'), fullPage: true }).catch(() => {});
    throw error;
  }
  await context.close();
  assert.deepEqual(failures, []);
});
