import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Locator } from 'playwright-core';
import { SHOWN } from '../../panel/src/features/hosts/item-order.ts';
import { REFRESH_MS } from '../../panel/src/features/hosts/keys.ts';
import { statement } from '../../server/store/statements.ts';
import { bigHost, seedBigHost } from './big-host.ts';
import { artifactPath, type PanelWorld, startPanelWorld } from './harness.ts';

/**
 * The page of a big host in Chromium: 300 containers and 400 units, none of a service, so all 700 are
 * also discovered. The page lists the first 50 of each, those in trouble first; a filter reaches the
 * rest, and "Show all" lists them all.
 */

const T0 = Date.UTC(2026, 0, 1, 9, 0);
let world: PanelWorld;

before(async () => {
  world = await startPanelWorld({
    at: T0,
    setupToken: 'setup-token-for-the-big-host',
    admin: { email: 'admin@example.com', password: 'correct horse battery staple' },
  });
  await world.api('POST', '/hosts', { name: 'host-0' });
  await world.server.deps.store.writer.run((db) => seedBigHost(db, 'host-0', T0));
});

after(() => world?.close());

const rowNames = (table: Locator, attribute: string) =>
  table.locator(`tr[${attribute}]`).evaluateAll((rows, a) => rows.map((r) => r.getAttribute(a)), attribute);

test('a big host lists the first 50 of each list, trouble first; the filter finds the rest; Show all lists all', async () => {
  await world.page('big-host', async (page) => {
    await page.goto(`${world.base}/hosts/host-0`);
    const containers = page.getByTestId('containers');
    const units = page.getByTestId('units');
    const discovered = page.getByTestId('discovered-items');
    await containers.waitFor();
    await discovered.waitFor();

    const first = await rowNames(containers, 'data-item');
    assert.equal(first.length, SHOWN);
    assert.deepEqual(
      first.slice(0, 3).sort(),
      [...bigHost.failingContainers].sort(),
      'the failing, unhealthy and restarting containers first',
    );
    assert.equal(first[3], bigHost.busiest, 'then the busiest');
    const unitNames = await rowNames(units, 'data-item');
    assert.equal(unitNames.length, SHOWN);
    assert.equal(unitNames[0], bigHost.failingUnit);
    const found = await rowNames(discovered, 'data-discovered');
    assert.equal(found.length, SHOWN);
    assert.equal(found[0], 'app-000', 'the newest first');
    assert.match(
      String(await page.getByTestId('containers-controls').textContent()),
      /50 of 300.*Show all 300/,
    );
    assert.equal(await page.locator('tbody tr').count(), 3 * SHOWN, 'the page holds 150 rows, not 1,400');
    await page.screenshot({ path: artifactPath('43-big-host.png') });

    // An idle container far down the list: the filter finds it among all 300.
    assert.ok(!first.includes('app-123'));
    await page.getByLabel('Filter containers').fill('APP-123');
    await containers.locator('tr[data-item="app-123"]').waitFor();
    assert.deepEqual(await rowNames(containers, 'data-item'), ['app-123']);
    assert.match(String(await page.getByTestId('containers-controls').textContent()), /1 of 1 matching, 300/);
    await page.getByLabel('Filter containers').fill('no-such-thing');
    await page.getByTestId('containers-controls').getByText('Nothing matches “no-such-thing”.').waitFor();
    await page.getByLabel('Filter containers').fill('');

    // A unit by its state, a discovered item by its image.
    // The failing unit already heads the list: wait for the filter to have applied, not for its row.
    await page.getByLabel('Filter units').fill('failed');
    await page
      .getByTestId('units-controls')
      .getByText(/^1 of 1 matching/)
      .waitFor();
    assert.deepEqual(await rowNames(units, 'data-item'), [bigHost.failingUnit]);
    await page.getByLabel('Filter discovered items').fill('team/app-2');
    await discovered.locator('tr[data-discovered="app-200"]').waitFor();
    assert.equal(await discovered.locator('tr[data-discovered]').count(), SHOWN, '100 match, 50 shown');
    await page.getByTestId('discovered-controls').getByRole('button', { name: 'Show all 100' }).click();
    await discovered.locator('tr[data-discovered="app-299"]').waitFor();
    assert.equal(await discovered.locator('tr[data-discovered]').count(), 100);

    // Show all: every container, kept across the page's 15-second refresh with new numbers.
    await page.getByTestId('containers-controls').getByRole('button', { name: 'Show all 300' }).click();
    await containers.locator('tr[data-item="app-123"]').waitFor();
    assert.equal(await containers.locator('tr[data-item]').count(), bigHost.containers);
    await world.server.deps.store.writer.run((db) =>
      statement(db, "UPDATE host_items SET cpu = 99 WHERE host = 'host-0' AND name = 'app-123'").run(),
    );
    const again = page.waitForResponse((r) => r.url().includes('/api/v1/hosts/host-0?'));
    await page.clock.runFor(REFRESH_MS);
    await again;
    await containers.locator('tr[data-item]').nth(3).and(page.locator('[data-item="app-123"]')).waitFor();
    assert.equal(await containers.locator('tr[data-item]').count(), bigHost.containers);
    assert.match(String(await containers.locator('tr[data-item="app-123"]').textContent()), /99%/);
    await page
      .getByTestId('containers-controls')
      .getByRole('button', { name: `Show the first ${SHOWN}` })
      .click();
    await containers.locator('tr[data-item]').nth(SHOWN).waitFor({ state: 'detached' });
    assert.equal(await containers.locator('tr[data-item]').count(), SHOWN);
  });
});
