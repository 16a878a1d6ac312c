import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { SettingsRead } from '../../protocol/notify.ts';
import type { Created, ServiceRead } from '../../protocol/reads.ts';
import type { FakeClock } from '../../server/clock.ts';
import { artifactPath, type PanelWorld, signIn, startPanelWorld } from './harness.ts';

/**
 * Silences and maintenance windows in Chromium. The server runs in this process on a fake clock (the
 * browser's clock is fixed at the same time); its check reaches a real loopback target. An admin
 * schedules maintenance from a service page, sees it in force on the windows screen, the service page
 * and the overview, and ends it; a viewer reads the list without controls.
 */

const T0 = Date.UTC(2026, 3, 1, 9, 0);
const setupToken = 'setup-token-for-the-windows-screen';
const admin = { email: 'admin@example.com', password: 'correct horse battery staple' };
const viewer = { email: 'viewer@example.com', password: 'another horse battery staple' };

let world: PanelWorld;
let clock: FakeClock;
let base = '';

const api = <T>(method: string, path: string, body?: unknown) => world.api<T>(method, path, body);
const run = (ms: number) => world.run(ms);
const withPage = (name: string, fn: (page: Page) => Promise<void>, as?: { name: string; value: string }) =>
  world.page(name, fn, as);

before(async () => {
  world = await startPanelWorld({ at: T0, setupToken, admin });
  ({ clock, base } = world);
  await api<Created>('POST', '/checks', {
    name: 'home',
    service: 'shop',
    kind: 'http',
    target: world.target.url,
    everyMs: 10_000,
  });
  await run(60_000);
});

after(() => world?.close());

test('maintenance scheduled from a service page is in force on the windows screen, the service page and the overview, and ends', async () => {
  await withPage('windows-maintenance', async (page) => {
    await page.goto(`${base}/services/shop`);
    await page.getByRole('link', { name: 'Schedule maintenance' }).click();
    await page.waitForURL(/\/settings\/windows\?new=maintenance&scope=service&name=shop$/);

    const form = page.locator('form');
    await page.getByRole('heading', { name: 'New maintenance window' }).waitFor();
    assert.equal(await page.getByLabel('Kind').inputValue(), 'maintenance');
    assert.equal(await page.getByLabel('Holds').inputValue(), 'service');
    assert.equal(await page.getByLabel('Service').inputValue(), 'shop');
    assert.equal(await page.getByLabel('Starts').inputValue(), 'now');
    await page.getByLabel('Lasts').selectOption('4h');
    await page.getByLabel('Reason').fill('database upgrade');
    await page.screenshot({ path: artifactPath('60-windows-form.png'), fullPage: true });
    await form.getByRole('button', { name: 'Save' }).click();

    const list = page.getByTestId('maintenance-list');
    const row = list.locator('tr[data-window]');
    await row.waitFor();
    await page.waitForURL(/\/settings\/windows$/);
    const text = String(await row.textContent());
    assert.match(text, /service shop/);
    assert.match(text, /in force/);
    assert.match(text, /database upgrade/);
    assert.match(text, /admin@example\.com/);
    // The list reloads before the form closes: wait for the form to go, not only for the row.
    await page.locator('form').waitFor({ state: 'detached' });
    const settings = await api<SettingsRead>('GET', '/settings');
    assert.equal(settings.maintenance.length, 1);
    const [made] = settings.maintenance;
    assert.deepEqual(
      {
        scope: made?.scope,
        name: made?.name,
        starts: made?.starts,
        ends: made?.ends,
        createdBy: made?.createdBy,
      },
      {
        scope: 'service',
        name: 'shop',
        starts: clock.now(),
        ends: clock.now() + 4 * 3_600_000,
        createdBy: admin.email,
      },
    );
    assert.deepEqual(settings.holds.maintenance, [made?.id]);
    await page.screenshot({ path: artifactPath('61-windows-in-force.png'), fullPage: true });

    // The live stream tells the service page (read before) to reload: its events go out on the server's clock.
    await clock.advance(1000);
    await page.getByRole('link', { name: 'shop' }).first().click();
    await page.waitForURL(/\/services\/shop$/);
    const note = page.getByTestId('maintenance');
    await note.waitFor();
    assert.match(String(await note.textContent()), /In maintenance until .+: database upgrade/);
    await page.screenshot({ path: artifactPath('62-service-in-maintenance.png'), fullPage: true });
    await page.getByRole('link', { name: 'Overview' }).first().click();
    await page.locator('.service-head [data-testid="maintenance"]').waitFor();

    // End it now: the list empties and the service is no longer in maintenance.
    await page.goto(`${base}/settings/windows`);
    await row.getByRole('button', { name: 'End now' }).click();
    await page.getByText('End the maintenance window of service shop now?').waitFor();
    await list.getByRole('group').getByRole('button', { name: 'End now' }).click();
    await list.getByText('None.').waitFor();
    const shop = await api<ServiceRead>('GET', '/services/shop');
    assert.equal(shop.maintenance, null);
    await page.goto(`${base}/services/shop`);
    await page.getByRole('heading', { name: /shop/ }).waitFor();
    assert.equal(await page.getByTestId('maintenance').count(), 0);
  });
});

test('a silence is changed in place; a viewer reads the list without controls', async () => {
  const { id } = await api<Created>('POST', '/silences', {
    scope: 'all',
    starts: clock.now() + 3_600_000,
    ends: clock.now() + 2 * 3_600_000,
    reason: 'night release',
  });
  await withPage('windows-edit', async (page) => {
    await page.goto(`${base}/settings/windows`);
    const row = page.getByTestId('silence-list').locator(`tr[data-window="${id}"]`);
    assert.match(String(await row.textContent()), /everything.*to.*night release/s);
    await row.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Change the silence' }).waitFor();
    assert.equal(await page.getByLabel('Starts').inputValue(), 'at');
    await page.getByLabel('Reason').fill('night release, second try');
    await page.locator('form').getByRole('button', { name: 'Save' }).click();
    await row.getByText('night release, second try').waitFor();
    const settings = await api<SettingsRead>('GET', '/settings');
    assert.equal(settings.silences[0]?.reason, 'night release, second try');
    assert.equal(settings.silences[0]?.starts, clock.now() + 3_600_000, 'the times stay');
  });

  await api('POST', '/users', { ...viewer, role: 'viewer' });
  const viewerSession = await signIn(base, viewer);
  await withPage(
    'windows-viewer',
    async (page) => {
      await page.goto(`${base}/settings/windows?new=silence&scope=service&name=shop`);
      const row = page.getByTestId('silence-list').locator(`tr[data-window="${id}"]`);
      await row.waitFor();
      assert.equal(await page.locator('form').count(), 0, 'no form for viewers');
      assert.equal(await page.getByRole('button', { name: /New|Edit|Delete|End now/ }).count(), 0);
      await page.goto(`${base}/services/shop`);
      await page.getByRole('heading', { name: /shop/ }).waitFor();
      assert.equal(await page.getByRole('link', { name: /Silence|Schedule maintenance/ }).count(), 0);
    },
    viewerSession,
  );
});
