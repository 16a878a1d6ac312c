import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type AuthTestServer, authTestServer } from '../../server/auth/test-helpers.ts';
import { FakeClock } from '../../server/clock.ts';
import { type Receiver, startReceiver } from '../../server/http/fixtures/receiver.ts';
import { storedChannel } from '../../server/notify/channel-store.ts';
import { statement } from '../../server/store/statements.ts';
import { tempDir } from '../../server/testing.ts';
import {
  artifactPath,
  callApi,
  createAdmin,
  ensurePanelBuilt,
  launchChromium,
  listenOnLoopback,
  withSignedInPage,
} from './harness.ts';

/**
 * The Channels screen and the incident page's notifications in Chromium. The server runs in this
 * process with a mon.toml that has one channel; the webhook channel made in the panel reaches a real
 * loopback receiver. Notifications of an incident are written to the outbox as the sender leaves them.
 */

const T0 = Date.UTC(2026, 0, 1, 9, 0);
const secret = 'whsec-browser-signing-secret';
const incidentId = 'c0ffee00c0ffee00';
const setupToken = 'setup-token-for-the-channel-pages';

let browser: Browser;
let server: AuthTestServer;
let receiver: Receiver;
/** The URL of the webhook channel made in the panel. */
let hookUrl = '';
let clock: FakeClock;
let base = '';
let admin: { name: string; value: string };
let viewer: { name: string; value: string };
let removeConfig: () => void = () => {};

const sessionOf = (cookie: string) => {
  const [name, value] = cookie.split('=') as [string, string];
  return { name, value };
};

before(async () => {
  await ensurePanelBuilt();
  [browser, receiver] = await Promise.all([launchChromium(), startReceiver()]);
  hookUrl = `${receiver.url}/hook`;
  const config = tempDir();
  removeConfig = config.remove;
  const configPath = join(config.dir, 'mon.toml');
  writeFileSync(configPath, '[[alert]]\nname = "ops"\ntype = "ntfy"\nurl = "https://ntfy.example/ops"\n');
  clock = new FakeClock(T0);
  server = await authTestServer({ clock, configPath, env: { MON_SETUP_TOKEN: setupToken } });
  base = await listenOnLoopback(server.app);
  admin = await createAdmin(base, setupToken, {
    email: 'admin@example.com',
    password: 'correct horse battery',
  });
  viewer = sessionOf(await server.cookieOf(await server.addUser('viewer@example.com', 'viewer')));
});

after(async () => {
  await browser?.close();
  await receiver?.close();
  await server?.dispose();
  removeConfig();
});

const withPage = (
  session: { name: string; value: string },
  name: string,
  fn: (page: Page) => Promise<void>,
) => withSignedInPage({ browser, base, session, now: clock.now() }, name, fn);

test('an admin adds a webhook channel, tests it, changes it keeping its secret, and removes it', async () => {
  await withPage(admin, 'channels-admin', async (page) => {
    await page.goto(`${base}/settings/channels`);
    const ops = page.locator('tr[data-channel="ops"]');
    await ops.waitFor();
    assert.match(String(await ops.textContent()), /from mon\.toml/);
    assert.equal(
      await ops.getByRole('button', { name: 'Edit' }).count(),
      0,
      'file channels change in the file',
    );
    assert.equal(await ops.getByRole('button', { name: 'Test' }).count(), 1);

    // The kind first: only its fields show.
    await page.locator('#new-channel-kind').selectOption('webhook');
    assert.equal(await page.locator('#new-channel-chatId').count(), 0);
    assert.equal(await page.locator('#new-channel-smtp').count(), 0);
    // A name of the kind mon gives unnamed [[alert]] tables is refused at its field.
    await page.locator('#new-channel-name').fill('webhook-2');
    await page.locator('#new-channel-url').fill(hookUrl);
    await page.getByRole('button', { name: 'Add channel' }).click();
    await page.locator('#new-channel-name-error').waitFor();
    assert.match(
      String(await page.locator('#new-channel-name-error').textContent()),
      /kind of name mon gives/,
    );

    await page.locator('#new-channel-name').fill('hook');
    await page.locator('#new-channel-secret').fill(secret);
    await page.locator('#new-channel-allowPrivate').check();
    await page.getByRole('button', { name: 'Add channel' }).click();
    const row = page.locator('tr[data-channel="hook"]');
    await row.waitFor();
    assert.match(String(await row.textContent()), new RegExp(hookUrl.replace(/[.?]/g, '\\$&')));
    assert.equal(storedChannel(server.deps.store.read, 'hook')?.settings.secret, secret);

    await row.getByRole('button', { name: 'Test' }).click();
    const result = page.getByTestId('test-hook');
    await result.getByText(/Test message delivered in \d+ ms/).waitFor();
    assert.equal(receiver.received.length, 1);
    assert.equal(JSON.parse(receiver.received[0]!.body).type, 'test');
    await page.screenshot({ path: artifactPath('40-channels.png'), fullPage: true });

    // Edit: the secret field is empty and says a value is kept.
    await row.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Change hook' }).waitFor();
    assert.equal(await page.locator('#edit-hook-secret').inputValue(), '');
    assert.match(
      String(await page.locator('#edit-hook-secret-hint').textContent()),
      /leave empty to keep it/,
    );
    // Another host in the URL: the stored secret does not go there, and the form says so.
    const hint = page.locator('#edit-hook-secret-hint');
    const elsewhere = hookUrl.replace('127.0.0.1', 'localhost');
    await page.locator('#edit-hook-url').fill(elsewhere);
    await hint
      .getByText(/Give the signing secret again: the stored one is not sent to another host/)
      .waitFor();
    await page.getByRole('button', { name: 'Save changes' }).click();
    const refused = page.locator('#edit-hook-secret-error');
    await refused.waitFor();
    assert.match(String(await refused.textContent()), /required when the URL moves to another host/);
    assert.equal(storedChannel(server.deps.store.read, 'hook')?.settings.url, hookUrl);
    await page.locator('#edit-hook-url').fill(`${hookUrl}?v=2`);
    await hint.getByText(/leave empty to keep it \(for another host in the URL, give it again\)/).waitFor();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Change hook' }).waitFor({ state: 'detached' });
    await row.getByText(`${hookUrl}?v=2`).waitFor();
    const stored = storedChannel(server.deps.store.read, 'hook');
    assert.deepEqual([stored?.settings.url, stored?.settings.secret], [`${hookUrl}?v=2`, secret]);
    assert.ok(!(await page.content()).includes(secret), 'the secret never reaches the page');

    await row.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('Remove hook?').waitFor();
    await page.getByRole('button', { name: 'Remove', exact: true }).first().click();
    await row.waitFor({ state: 'detached' });
    assert.equal(storedChannel(server.deps.store.read, 'hook'), null);
  });
});

test('a viewer sees the channels without their settings and without any control', async () => {
  const made = await callApi(base, admin, 'POST', '/channels', {
    name: 'team',
    kind: 'ntfy',
    url: 'https://ntfy.example/team-topic',
    secret: 'tk_hidden',
  });
  assert.deepEqual(made, { name: 'team' });
  await withPage(viewer, 'channels-viewer', async (page) => {
    await page.goto(`${base}/settings/channels`);
    const team = page.locator('tr[data-channel="team"]');
    await team.waitFor();
    assert.match(String(await page.locator('tr[data-channel="ops"]').textContent()), /from mon\.toml/);
    const html = await page.content();
    assert.ok(!html.includes('team-topic') && !html.includes('ntfy.example'), 'no settings');
    assert.ok(!html.includes('tk_hidden'));
    assert.equal(await page.getByRole('button', { name: 'Test' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Edit' }).count(), 0);
    assert.equal(await page.getByRole('heading', { name: 'Add a channel' }).count(), 0);
  });
});

test('the incident page lists its notifications: channel, change, state in words, attempts, error, time', async () => {
  const at = clock.now();
  await server.deps.store.writer.run((db) => {
    statement(
      db,
      `INSERT INTO incidents (id, title, service, started_at) VALUES (?, 'shop is down', 'shop', ?)`,
    ).run(incidentId, at - 600_000);
    const row = statement(
      db,
      `INSERT INTO outbox (message_id, incident, channel, kind, change, message, created_at, state, due_at,
         attempts, last_attempt_at, last_error, sent_at, held_by)
       VALUES (?, ?, ?, ?, ?, '{}', ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    row.run(
      'm1',
      incidentId,
      'ops',
      'ntfy',
      'opened',
      at - 600_000,
      'sent',
      null,
      1,
      at - 599_000,
      null,
      at - 599_000,
      null,
    );
    row.run(
      'm2',
      incidentId,
      'hook',
      'webhook',
      'opened',
      at - 600_000,
      'due',
      at + 120_000,
      2,
      at - 60_000,
      'webhook answered 503: busy',
      null,
      null,
    );
    row.run(
      'm3',
      incidentId,
      'mail',
      'email',
      'reminder',
      at - 300_000,
      'failed',
      null,
      1,
      at - 300_000,
      'SMTP answered 550: no such user',
      null,
      null,
    );
    row.run(
      'm4',
      incidentId,
      'chat',
      'slack',
      'reminder',
      at - 300_000,
      'muted',
      null,
      0,
      null,
      null,
      null,
      'w1',
    );
  });
  await withPage(viewer, 'incident-deliveries', async (page) => {
    await page.goto(`${base}/incidents/${incidentId}`);
    const table = page.getByTestId('deliveries');
    await table.waitFor();
    await page.getByRole('heading', { name: 'Notifications' }).waitFor();
    const rows = await table.locator('tbody tr').allTextContents();
    assert.equal(rows.length, 4);
    assert.match(rows[0]!, /ops\s*ntfy\s*opened\s*sent\s*1/);
    assert.match(
      rows[1]!,
      /hook\s*webhook\s*opened\s*failed, will try againwebhook answered 503: busy\s*2\s*next attempt/,
    );
    assert.match(
      rows[2]!,
      /mail\s*email\s*reminder\s*not delivered, given upSMTP answered 550: no such user\s*1/,
    );
    assert.match(rows[3]!, /chat\s*slack\s*reminder\s*held back by a silence or maintenance window\s*0/);
    await page.screenshot({ path: artifactPath('41-incident-deliveries.png'), fullPage: true });
  });
});
