import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import type { SampleFrame } from '../../protocol/agent.ts';
import { addHostSample, hostMetricsOf } from '../../server/hosts/rollups.ts';
import { statement } from '../../server/store/statements.ts';
import { LONG_PAGE, SHOP, serveAnalytics } from './analytics-fixtures.ts';
import { artifactPath, type PanelWorld, startPanelWorld } from './harness.ts';

/**
 * The hosts and analytics pages on a phone (375 px) and a tablet (768 px), and with the keyboard alone, in
 * Chromium: no page scrolls sideways, headings keep their words, tables show their key figures without a
 * swipe, status has a shape and contrast, focus is never under the sticky bar and comes back to the control
 * that opened a part, and charts are read without a mouse. web-1 has sent samples for two hours and has
 * containers and units of no service (so each is also discovered); the analytics API answers from
 * analytics-fixtures.ts.
 */

const T0 = Date.UTC(2026, 0, 1, 12, 0);
const MIN = 60_000;
const sizes = [
  { width: 375, height: 667 },
  { width: 768, height: 1024 },
];
let world: PanelWorld;

function sampleAt(ts: number, cpu: number): SampleFrame {
  return {
    kind: 'sample',
    ts,
    cpu,
    memory: { used: 6 * 2 ** 30, total: 16 * 2 ** 30 },
    swap: { used: 0, total: 0 },
    disks: [{ mount: '/', device: '/dev/sda1', fstype: 'ext4', used: 40 * 2 ** 30, size: 100 * 2 ** 30 }],
    diskIo: { readBps: 2 ** 20, writeBps: 2 ** 20 },
    net: { rxBps: 2 ** 20, txBps: 2 ** 19 },
    load: [1.5, 1.2, 0.9],
    temperatures: [],
    containers: null,
    units: null,
  };
}

/** web-1's agent: a sample a minute for two hours, connected now; its containers and units. */
function seed(db: DatabaseSync): void {
  let latest = sampleAt(T0, 0);
  for (let ts = T0 - 120 * MIN; ts < T0; ts += MIN) {
    latest = sampleAt(ts, 20 + ((ts / MIN) % 10));
    addHostSample(db, 'web-1', ts, hostMetricsOf(latest, []));
  }
  const hello = { agentVersion: '0.9.0', protocol: 1, capabilities: [], hostname: 'web-1', cores: 4 };
  statement(
    db,
    `UPDATE hosts SET agent = ?, latest = ?, first_seen = ?, last_seen = ? WHERE name = 'web-1'`,
  ).run(JSON.stringify(hello), JSON.stringify(latest), T0 - 120 * MIN, T0 - 10_000);
  const item = statement(
    db,
    `INSERT INTO host_items (host, kind, name, id, state, sub_state, health, restarts, exit_code, image, labels,
       cpu, memory, first_seen, updated_at)
     VALUES ('web-1', ?, ?, ?, ?, ?, NULL, 0, ?, ?, '{}', 5, ?, ?, ?)`,
  );
  const items = [
    ['container', 'shop-api', 'running', null, 0],
    ['container', 'worker', 'exited', null, 1],
    ['container', 'cache', 'created', null, null],
    ['unit', 'backup.service', 'failed', 'failed', null],
    ['unit', 'nginx.service', 'active', 'running', null],
  ] as const;
  items.forEach(([kind, name, state, sub, exit], i) => {
    const image = kind === 'container' ? `registry.example.com/team/${name}:1.0` : null;
    item.run(
      kind,
      name,
      `c00000000000000${i}`,
      state,
      sub,
      exit,
      image,
      64 * 2 ** 20,
      T0 - (i + 1) * MIN,
      T0 - MIN,
    );
  });
}

before(async () => {
  world = await startPanelWorld({
    at: T0,
    setupToken: 'setup-token-for-phones-and-keyboards',
    admin: { email: 'admin@example.com', password: 'correct horse battery staple' },
  });
  await world.api('POST', '/hosts', { name: 'web-1' });
  await world.server.deps.store.writer.run(seed);
});

after(() => world?.close());

/** A page at `size`, with the analytics API answered from the fixtures. */
function at(size: { width: number; height: number }, name: string, fn: (page: Page) => Promise<void>) {
  return world.page(name, async (page) => {
    await page.setViewportSize(size);
    await serveAnalytics(page, T0, [SHOP]);
    await fn(page);
  });
}

const screens = [
  { name: 'hosts', path: '/hosts', ready: '[data-testid=hosts]' },
  { name: 'host', path: '/hosts/web-1', ready: '[data-chart="cpu"] canvas' },
  { name: 'analytics', path: `/analytics?site=${SHOP}&range=24h`, ready: '[data-chart="traffic"] canvas' },
];

async function open(page: Page, screen: (typeof screens)[number]) {
  await page.goto(`${world.base}${screen.path}`);
  await page.locator(screen.ready).first().waitFor();
}

/** How far the page scrolls sideways: 0 when nothing is wider than the window. */
const sideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Headings of cards that take more lines than their words need: broken in the middle of a word. */
const brokenHeadings = (page: Page) =>
  page.locator('.card-head > h2').evaluateAll((headings) =>
    headings
      .filter((h) => !(h.textContent ?? '').includes(' '))
      .filter((h) => h.getBoundingClientRect().height > parseFloat(getComputedStyle(h).lineHeight) * 1.5)
      .map((h) => h.textContent),
  );

/** Whether the cell of `row` under the header `column` shows whole in the box that scrolls its table. */
const visibleInTable = (page: Page, row: string, column: string) =>
  page.locator(row).evaluate((tr, name) => {
    const table = tr.closest('table') as HTMLTableElement;
    const index = [...table.querySelectorAll('thead th')].findIndex((th) => th.textContent === name);
    const cell = (tr as HTMLTableRowElement).cells[index];
    if (!cell) return false;
    const box = (table.closest('.table-scroll') as HTMLElement).getBoundingClientRect();
    const r = cell.getBoundingClientRect();
    return r.left >= box.left && r.right <= box.right + 0.5;
  }, column);

test('at 375 and 768 px no page scrolls sideways, headings keep their words, key figures show without a swipe', async () => {
  for (const size of sizes) {
    await at(size, `phone-${size.width}`, async (page) => {
      for (const screen of screens) {
        await open(page, screen);
        assert.equal(await sideways(page), 0, `${screen.path} at ${size.width} px scrolls sideways`);
        assert.deepEqual(await brokenHeadings(page), [], `${screen.path} at ${size.width} px`);
        await page.screenshot({
          path: artifactPath(`phone-${screen.name}-${size.width}.png`),
          fullPage: true,
        });
      }
      // The sticky bar: one row on neither, but the page is no wider for it; "Sign out" is on screen.
      const signOut = await page.getByRole('button', { name: 'Sign out' }).boundingBox();
      assert.ok(signOut && signOut.x + signOut.width <= size.width, 'Sign out is on screen');

      // What matters of a row shows without a swipe: a host's CPU and memory, an error's count and last seen.
      await open(page, screens[0]!);
      for (const column of ['CPU', 'Memory']) {
        assert.ok(await visibleInTable(page, 'tr[data-host="web-1"]', column), `${column} of a host`);
      }
      await open(page, screens[2]!);
      for (const column of ['Count', 'Last seen']) {
        assert.ok(await visibleInTable(page, 'tr[data-group] >> nth=0', column), `${column} of an error`);
      }
      // A page's Web Vitals, all five, beside its path: cut short, whole in its tooltip and its name.
      const vitalsRow = `[data-testid=vitals-pages] tr[data-page="${LONG_PAGE}"]`;
      for (const column of ['LCP', 'INP', 'CLS', 'FCP', 'TTFB']) {
        assert.ok(await visibleInTable(page, vitalsRow, column), `${column} of a page at ${size.width} px`);
      }
      await page
        .locator('.table-scroll:has([data-testid=vitals-pages])')
        .screenshot({ path: artifactPath(`phone-vitals-pages-${size.width}.png`) });
      const path = page.getByTestId('vitals-pages').getByRole('cell', { name: LONG_PAGE, exact: true });
      assert.equal(await path.getAttribute('title'), LONG_PAGE);
      const cut = await path.locator('span').evaluate((s) => ({
        cut: s.scrollWidth > s.clientWidth,
        ellipsis: getComputedStyle(s).textOverflow === 'ellipsis',
      }));
      assert.deepEqual(cut, { cut: true, ellipsis: true }, 'the path is cut short, with an ellipsis');
    });
  }
});

/** The contrast of a status badge's text on its background (WCAG), in the theme shown. */
const badgeContrasts = (page: Page) =>
  page.locator('main .status').evaluateAll((badges) => {
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const luminance = (c: string) => {
      const [r, g, b] = rgb(c).map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    return badges.map((b) => {
      const style = getComputedStyle(b);
      const [fg, bg] = [luminance(style.color), luminance(style.backgroundColor)];
      return { text: b.textContent, ratio: (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05) };
    });
  });

test('status badges of hosts, containers and units have a shape, and words readable on their colour in both themes', async () => {
  await at(sizes[0]!, 'badges', async (page) => {
    // Colours without their transition, so that each theme's is read at once.
    await page.emulateMedia({ reducedMotion: 'reduce' });
    for (const screen of screens.slice(0, 2)) {
      await open(page, screen);
      for (const theme of ['light', 'dark']) {
        await page.evaluate((t) => {
          document.documentElement.dataset.theme = t;
        }, theme);
        for (const { text, ratio } of await badgeContrasts(page)) {
          assert.ok(ratio >= 4.5, `${text} in ${theme} on ${screen.path}: ${ratio.toFixed(2)}:1`);
        }
      }
    }
    const states = page.locator('[data-testid=containers] .status, [data-testid=units] .status');
    assert.equal(await states.count(), 5);
    const shapes = await states.evaluateAll((s) =>
      s.map((b) => b.querySelector('.shape')?.textContent ?? ''),
    );
    assert.deepEqual(shapes.sort(), ['●', '●', '○', '▼', '▼'].sort(), 'running and active, created, failed');
  });
});

/** Where the focused element is against the sticky bar's bottom. */
const focusAgainstBar = (page: Page) =>
  page.evaluate(() => {
    const focused = document.activeElement as HTMLElement;
    const bar = (document.querySelector('.topbar') as HTMLElement).getBoundingClientRect().bottom;
    const r = focused.getBoundingClientRect();
    return {
      what: focused.outerHTML.slice(0, 80),
      top: r.top,
      bar,
      inMain: Boolean(focused.closest('main')),
    };
  });

test('going back up with Shift+Tab, what has the focus is never under the sticky bar', async () => {
  for (const size of sizes) {
    await at(size, `focus-under-bar-${size.width}`, async (page) => {
      for (const screen of screens.slice(1)) {
        await open(page, screen);
        // From the end of the page up: each control scrolls in at the top edge, where the bar is.
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        await page.locator('main button, main a, main input').last().focus();
        for (let i = 0; i < 30; i++) {
          await page.keyboard.press('Shift+Tab');
          const f = await focusAgainstBar(page);
          if (!f.inMain) break;
          assert.ok(
            f.top >= f.bar,
            `${screen.path} at ${size.width} px: ${f.what} at ${f.top}, bar to ${f.bar}`,
          );
        }
      }
    });
  }
});

/** The focused element's id. */
const focused = (page: Page) => page.evaluate(() => document.activeElement?.id);

/** Whether the element of `locator` has the focus. */
const hasFocus = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);

test('closing a part gives the focus back to what opened it; Escape closes forms and searches', async () => {
  await at(sizes[0]!, 'focus-returns', async (page) => {
    // The one-time token: Done goes back to the add form's name.
    await page.goto(`${world.base}/hosts`);
    await page.getByLabel('Name').fill('web-2');
    await page.getByRole('button', { name: 'Add host' }).click();
    await page.getByTestId('installed').waitFor();
    await page.getByRole('button', { name: 'Done: I have copied what I need' }).click();
    assert.equal(await focused(page), 'host-name');

    // New token of a host page: Done goes back to "New token…".
    await open(page, screens[1]!);
    await page.getByRole('button', { name: 'New token…' }).click();
    await page.getByRole('button', { name: 'Make a new token' }).click();
    await page.getByTestId('installed').waitFor();
    await page.getByRole('button', { name: 'Done: I have copied what I need' }).click();
    assert.equal(await focused(page), 'new-token');

    // Discovered: one name per button; the Monitor form closes on Escape; Dismiss moves on to the next.
    const discovered = page.getByTestId('discovered-items');
    const names = await discovered
      .getByRole('button')
      .evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? b.textContent));
    assert.equal(new Set(names).size, names.length, `unique: ${names.join(', ')}`);
    const order = await discovered
      .locator('tr[data-discovered]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-discovered')));
    await page.getByRole('button', { name: `Monitor ${order[0]}`, exact: true }).click();
    const service = page.getByLabel('Service', { exact: true });
    assert.ok(await hasFocus(service), 'the form takes the focus');
    await page.keyboard.press('Escape');
    await service.waitFor({ state: 'detached' });
    assert.ok(await hasFocus(page.getByRole('button', { name: `Monitor ${order[0]}`, exact: true })));
    await page.getByRole('button', { name: `Dismiss ${order[0]}`, exact: true }).click();
    await discovered.locator(`tr[data-discovered="${order[0]}"]`).waitFor({ state: 'detached' });
    await page.waitForFunction(
      (next) => document.activeElement?.getAttribute('aria-label') === `Dismiss ${next}`,
      order[1],
    );

    // Analytics: the add-site form and the longer lists close on Escape or their button, back to their opener.
    await open(page, screens[2]!);
    const addSite = page.getByRole('button', { name: 'Add a site…' });
    await addSite.click();
    assert.equal(await focused(page), 'site-domain');
    await page.keyboard.press('Escape');
    assert.equal(await focused(page), 'add-site-open');
    await addSite.click();
    await page.getByTestId('add-site').getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await focused(page), 'add-site-open');
    const more = page.getByRole('button', { name: 'More pages…' });
    await more.click();
    const search = page.getByLabel('Search pages');
    await search.waitFor();
    // As in search fields: Escape clears what is typed first, and closes the search only when empty.
    await search.pressSequentially('/blog');
    await page.keyboard.press('Escape');
    assert.equal(await search.inputValue(), '', 'the first Escape clears the search');
    assert.ok(await hasFocus(search), 'and leaves the focus there');
    await page.keyboard.press('Escape');
    await search.waitFor({ state: 'detached' });
    assert.ok(await hasFocus(more), 'the next Escape closes it: back to More');
    // From another control of the search, the same: typed text first.
    await more.click();
    await search.fill('/pricing');
    await page.getByLabel('Rows', { exact: true }).focus();
    await page.keyboard.press('Escape');
    assert.equal(await search.inputValue(), '');
    await page.keyboard.press('Escape');
    assert.ok(await hasFocus(more), 'Escape: back to More');
    await more.click();
    await page.getByRole('button', { name: 'Back to the top ten' }).click();
    assert.ok(await hasFocus(more), 'Back to the top ten: back to More');
  });
});

/** Each table's scroll box on the page: whether it scrolls, and what the keyboard and screen readers get. */
const tableBoxes = (page: Page) =>
  page.locator('.table-scroll').evaluateAll((boxes) =>
    boxes.map((box) => ({
      table: box.querySelector('table')?.dataset.testid ?? box.textContent?.slice(0, 30),
      overflows: box.scrollWidth > box.clientWidth + 1,
      tabIndex: box.getAttribute('tabindex'),
      role: box.getAttribute('role'),
      heading: box.closest('section, .card')?.querySelector('h1, h2, h3')?.textContent ?? null,
    })),
  );

test('a table wider than its box: the box takes the focus, named as its card, with a ring, and arrow keys scroll it; not when it fits', async () => {
  await at(sizes[0]!, 'table-focus', async (page) => {
    for (const screen of screens) {
      await open(page, screen);
      for (const b of await tableBoxes(page)) {
        assert.deepEqual(
          [b.tabIndex, b.role],
          b.overflows ? ['0', 'region'] : [null, null],
          `${screen.path} ${b.table}: a stop only when it scrolls`,
        );
      }
    }
    // The hosts table at 375 px: Tab reaches its box, before the links in its rows.
    await open(page, screens[0]!);
    const box = page.getByRole('region', { name: 'Hosts', exact: true });
    assert.equal(await box.locator('[data-testid=hosts]').count(), 1, 'the region is named after the table');
    await page.getByRole('link', { name: 'Hosts', exact: true }).focus();
    for (let i = 0; i < 40 && !(await hasFocus(box)); i++) await page.keyboard.press('Tab');
    assert.ok(await hasFocus(box), 'Tab reaches the box');
    const ring = await box.evaluate((b) => {
      const style = getComputedStyle(b);
      return { visible: b.matches(':focus-visible'), style: style.outlineStyle, width: style.outlineWidth };
    });
    assert.deepEqual(ring, { visible: true, style: 'solid', width: '2px' }, 'a focus ring');
    assert.equal(await box.evaluate((b) => b.scrollLeft), 0);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => (document.activeElement as HTMLElement).scrollLeft > 0);
    // On a wide window the table fits: the box is no longer a stop.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator('.table-scroll:has([data-testid=hosts]):not([tabindex])').waitFor();
    assert.equal(await page.getByRole('region', { name: 'Hosts', exact: true }).count(), 0);
  });
});

test('a chart takes the focus, tells its range in words, and arrow keys read its values', async () => {
  await at(sizes[0]!, 'chart-keys', async (page) => {
    await open(page, screens[1]!);
    const chart = page.locator('[data-chart="cpu"] [role="img"]');
    const summary = await chart.evaluate(
      (c) => document.getElementById(c.getAttribute('aria-describedby') ?? '')?.textContent ?? '',
    );
    assert.match(summary, /lowest .+%, average .+%, highest .+% at /);
    await chart.focus();
    await page.keyboard.press('End');
    const reading = page.locator('[data-chart="cpu"] [data-testid="chart-reading"]');
    const last = String(await reading.textContent());
    assert.match(last, /^.+: .+%/);
    await page.keyboard.press('ArrowLeft');
    const before = String(await reading.textContent());
    assert.notEqual(before, last);
    // The legend shows the step's values too, as under a mouse.
    assert.match(String(await page.locator('[data-chart="cpu"] .u-legend').textContent()), /%/);
    await page.keyboard.press('Home');
    assert.notEqual(await reading.textContent(), before);
    await page.screenshot({ path: artifactPath('chart-keys-375.png') });
  });
});
