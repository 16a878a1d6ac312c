import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { type Receiver, startReceiver } from '../../server/http/fixtures/receiver.ts';
import {
  artifactPath,
  callApi,
  createAdmin,
  ensurePanelBuilt,
  launchChromium,
  type MonProcess,
  signIn,
  startMon,
  withSignedInPage,
} from './harness.ts';

/**
 * The watchdog screen in Chromium against the real server process. mon.toml sets the edge, pointed at
 * a loopback receiver that answers 500; the heartbeat URL is set in the screen, pointed at another
 * receiver on loopback (so the form's "Allow private addresses" is needed), whose request the test
 * sees arrive before the screen shows it as sent.
 */

const admin = { email: 'admin@example.com', password: 'correct horse battery staple' };
const viewer = { email: 'viewer@example.com', password: 'another long passphrase' };
const edgeToken = 'edge-token-of-the-panel-test';
const secretPath = '/ping/5e1f-secret-ping-id';

let edge: Receiver;
let ping: Receiver;
let mon: MonProcess;
let browser: Browser;
let session: { name: string; value: string };

before(async () => {
  await ensurePanelBuilt();
  [edge, ping] = await Promise.all([startReceiver(), startReceiver()]);
  edge.answer = () => ({ status: 500, body: 'edge is unwell' });
  const toml = `[watchdog.edge]\nurl = "${edge.url}/mon"\ntoken = "\${EDGE_TOKEN}"\nallow_private = true\n`;
  [mon, browser] = await Promise.all([
    startMon({ files: { 'mon.toml': toml }, env: { EDGE_TOKEN: edgeToken } }),
    launchChromium(),
  ]);
  session = await createAdmin(mon.base, mon.setupToken, admin);
});

after(async () => {
  await browser?.close();
  await mon?.stop();
  await Promise.all([edge?.close(), ping?.close()]);
});

test('an admin sets the heartbeat URL, sees its request go out, and removes it; the edge of mon.toml is read-only', async () => {
  await withSignedInPage({ browser, base: mon.base, session, now: Date.now() }, 'watchdog', async (page) => {
    await page.goto(`${mon.base}/settings/watchdog`);
    await page.getByRole('heading', { name: 'Watchdog', level: 1 }).waitFor();
    const edgeCard = page.getByTestId('watchdog-edge');
    const heartbeatCard = page.getByTestId('watchdog-heartbeat');

    // The file's edge: its state, its error, no form.
    await edgeCard.getByText('set in mon.toml').waitFor();
    await edgeCard.getByText(`${edge.url}/mon`).waitFor();
    await edgeCard.getByText('the edge answered 500: edge is unwell').waitFor();
    assert.equal(await edgeCard.getByRole('button').count(), 0);
    assert.equal(edge.received[0]?.headers.authorization, `Bearer ${edgeToken}`);

    // A plain-http loopback URL needs private addresses allowed: the error shows at the field.
    await heartbeatCard.getByText('Not set.').waitFor();
    await heartbeatCard.getByLabel('URL').fill(`${ping.url}${secretPath}`);
    await heartbeatCard.getByRole('button', { name: 'Set heartbeat URL' }).click();
    await heartbeatCard.getByText(/must be https:\/\/ \(plain http:\/\/ only with allowPrivate/).waitFor();
    assert.equal(ping.received.length, 0);

    await heartbeatCard.getByLabel('Allow private addresses').check();
    await heartbeatCard.getByRole('button', { name: 'Set heartbeat URL' }).click();
    await heartbeatCard.getByText('Saved: the first request is on its way.').waitFor();
    await ping.arrived(1);
    assert.equal(ping.received[0]!.method, 'GET');
    assert.equal(ping.received[0]!.url, secretPath);
    // Shown: the host, and a time once the answer is stored; never the secret path.
    await heartbeatCard.getByText(ping.host, { exact: true }).waitFor();
    const lastSent = heartbeatCard.locator('dt:text-is("Last sent") + dd');
    await page.waitForFunction(
      (el) => el !== null && el.textContent !== 'never',
      await lastSent.elementHandle(),
      { timeout: 15_000 },
    );
    assert.ok(!(await page.content()).includes('secret-ping-id'));
    await page.screenshot({ path: artifactPath('watchdog.png'), fullPage: true });

    await heartbeatCard.getByRole('button', { name: 'Remove' }).click();
    await heartbeatCard.getByRole('group').getByRole('button', { name: 'Remove' }).click();
    await heartbeatCard.getByText('Not set.').waitFor();
  });
});

test('a viewer sees the targets and their state, and no form', async () => {
  await callApi(mon.base, session, 'POST', '/users', { ...viewer, role: 'viewer' });
  await withSignedInPage(
    { browser, base: mon.base, session: await signIn(mon.base, viewer), now: Date.now() },
    'watchdog-viewer',
    async (page) => {
      await page.goto(`${mon.base}/settings/watchdog`);
      const edgeCard = page.getByTestId('watchdog-edge');
      await edgeCard.getByText('the edge answered 500: edge is unwell').waitFor();
      await page.getByTestId('watchdog-heartbeat').getByText('Not set.').waitFor();
      assert.equal(await page.locator('main form, form').count(), 0);
      assert.equal(await page.getByRole('button', { name: /heartbeat URL|Remove/ }).count(), 0);
    },
  );
});

test('once mon.toml no longer sets the edge, an admin sets it with a token and replaces its URL keeping the token', async () => {
  writeFileSync(join(mon.dataDir, 'mon.toml'), '');
  edge.answer = () => ({ status: 200 });
  await withSignedInPage(
    { browser, base: mon.base, session, now: Date.now() },
    'watchdog-edge',
    async (page) => {
      await page.goto(`${mon.base}/settings/watchdog`);
      const edgeCard = page.getByTestId('watchdog-edge');
      // The reload is seen within the screen's next reads.
      await edgeCard.getByText('Not set.').waitFor();
      const before = edge.received.length;
      await edgeCard.getByLabel('URL').fill(`${edge.url}/first`);
      await edgeCard.getByLabel('Token').fill('token-typed-in-the-panel');
      await edgeCard.getByLabel('Allow private addresses').check();
      await edgeCard.getByRole('button', { name: 'Set edge' }).click();
      await edge.arrived(before + 1);
      assert.equal(edge.received.at(-1)!.url, '/first');
      assert.equal(edge.received.at(-1)!.headers.authorization, 'Bearer token-typed-in-the-panel');
      await edgeCard.getByText(`${edge.url}/first`).waitFor();

      // The token field left empty keeps the stored token.
      await edgeCard.getByLabel('URL').fill(`${edge.url}/second`);
      await edgeCard.getByLabel('Allow private addresses').check();
      await edgeCard.getByRole('button', { name: 'Replace edge' }).click();
      await edge.arrived(before + 2);
      assert.equal(edge.received.at(-1)!.url, '/second');
      assert.equal(edge.received.at(-1)!.headers.authorization, 'Bearer token-typed-in-the-panel');
      await edgeCard.getByText(`${edge.url}/second`).waitFor();
      assert.ok(!(await page.content()).includes('token-typed-in-the-panel'));
    },
  );
});
