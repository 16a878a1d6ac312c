import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { AnalyticsRead } from '../../protocol/analytics.ts';
import type { IncidentRead } from '../../protocol/incidents.ts';
import { statement } from '../../server/store/statements.ts';
import {
  BLOG,
  hostileMessage,
  pages,
  SHOP,
  SNIPPET,
  serveAnalytics,
  visitorsAround,
} from './analytics-fixtures.ts';
import { artifactPath, type PanelWorld, signIn, startPanelWorld } from './harness.ts';

/**
 * The analytics page, adding a site and an incident's visitors in Chromium. The server runs in this
 * process on a fake clock (sign-in, roles, services, incidents are real); the analytics API answers
 * from analytics-fixtures.ts in the protocol's shapes, through the page's routes. The story: shop.example.com
 * of service shop has had visitors all day, an error group that followed deploy v2.4.0, and visitors
 * behind one shared address; blog.example.com has none; shop had an incident from 10:30 to 11:30.
 */

const T0 = Date.UTC(2026, 0, 1, 12, 0);
const MIN = 60_000;
const setupToken = 'setup-token-for-the-analytics-pages';
const admin = { email: 'admin@example.com', password: 'correct horse battery staple' };
const viewerWho = { email: 'viewer@example.com', password: 'another horse battery staple' };
const incidentId = 'abcdef0000000001';
const incidentStart = T0 - 90 * MIN;
const incidentEnd = T0 - 30 * MIN;

let world: PanelWorld;
let base = '';

before(async () => {
  world = await startPanelWorld({ at: T0, setupToken, admin });
  base = world.base;
  await world.server.deps.store.writer.run((db) => {
    statement(
      db,
      `INSERT INTO incidents (id, title, service, started_at, resolved_at) VALUES (?, 'shop is down', 'shop', ?, ?)`,
    ).run(incidentId, incidentStart, incidentEnd);
  });
});

after(() => world?.close());

const withPage = (name: string, fn: (page: Page) => Promise<void>) => world.page(name, fn);

/** The resolved value of a colour variable of the theme, as the page computes it. */
const themeColour = (page: Page, name: string) =>
  page.evaluate((variable) => {
    const probe = document.createElement('span');
    probe.style.color = `var(${variable})`;
    document.body.append(probe);
    const colour = getComputedStyle(probe).color;
    probe.remove();
    return colour;
  }, name);

test('with no site, an admin adds one: refusals at their field, then the snippet with data-dnt, and its page', async () => {
  await withPage('analytics-add-site', async (page) => {
    const served = await serveAnalytics(page, T0, []);
    await page.goto(`${base}/analytics`);
    await page.getByTestId('no-site').waitFor();
    assert.match(String(await page.getByTestId('no-site').textContent()), /Add a site below/);
    const form = page.getByTestId('add-site');
    const domain = form.getByLabel('Domain', { exact: true });
    const check = form.getByRole('checkbox');
    assert.match(String(await check.locator('..').textContent()), /Also check its home page every minute/);
    assert.equal(await check.isChecked(), true, 'the home page check is asked for by default');

    // A site mon knows: 409 at the domain, which gets the focus.
    await domain.fill('taken.example');
    await form.getByRole('button', { name: 'Add site' }).click();
    const domainError = form.locator('[data-field="domain"] .field-error');
    await domainError.waitFor();
    assert.equal(await domainError.textContent(), 'The site taken.example exists');
    assert.equal(await domain.getAttribute('aria-invalid'), 'true');
    assert.equal(await domain.evaluate((el) => el === document.activeElement), true);

    // A URL instead of a host name: the server's 422 lands at the domain too.
    await domain.fill('https://shop.example.com/');
    await form.getByRole('button', { name: 'Add site' }).click();
    await form.locator('[data-field="domain"] .field-error', { hasText: 'must be a host name' }).waitFor();

    await domain.fill('Shop.Example.com');
    assert.equal(
      await form.getByLabel('Service').getAttribute('placeholder'),
      'shop-example-com',
      'the default service is shown',
    );
    assert.match(
      String(await check.locator('..').textContent()),
      /Also check https:\/\/shop\.example\.com\/ every minute/,
    );
    await form.getByRole('button', { name: 'Add site' }).click();
    const added = page.getByTestId('site-added');
    await added.waitFor();
    assert.deepEqual(served.added.at(-1), {
      domain: SHOP,
      service: 'shop-example-com',
      check: {
        name: SHOP,
        service: 'shop-example-com',
        kind: 'http',
        target: 'https://shop.example.com/',
        everyMs: 60_000,
      },
    });
    // The answer gets the focus (in an effect after it shows).
    await page.locator('#site-added-title:focus').waitFor();
    const snippet = added.getByLabel('Tracking snippet');
    assert.equal(await snippet.inputValue(), SNIPPET(SHOP));
    assert.match(String(await added.textContent()), /just before <\/head>/);
    await added.getByRole('checkbox', { name: 'Honour Do Not Track and Global Privacy Control' }).check();
    assert.equal(await snippet.inputValue(), SNIPPET(SHOP).replace('></script>', ' data-dnt></script>'));
    assert.equal(
      await added.getByRole('link', { name: 'check of its home page' }).getAttribute('href'),
      '/checks/00000000000000c1',
    );

    // The page now reads the new site.
    await page.waitForURL(`${base}/analytics?site=${SHOP}&range=24h`);
    await page.getByTestId('totals').waitFor();
    assert.equal(served.reads.at(-1)?.searchParams.get('site'), SHOP);
    await page.screenshot({ path: artifactPath('50-analytics-site-added.png'), fullPage: true });
    await added.getByRole('button', { name: 'Done' }).click();
    await page.getByTestId('site-added').waitFor({ state: 'detached' });
  });
});

test('the site page: totals with their change, chart, top lists, Web Vitals by rating, error groups, the shared-address notice', async () => {
  await withPage('analytics-site', async (page) => {
    await serveAnalytics(page, T0, [BLOG, SHOP]);
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { violations: string[] }).violations = seen;
      document.addEventListener('securitypolicyviolation', (e) =>
        seen.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    await page.goto(`${base}/analytics?site=${SHOP}`);
    await page.getByTestId('totals').waitFor();
    await page.locator('[data-chart="traffic"] canvas').first().waitFor();
    assert.equal(await page.title(), `${SHOP} · Analytics · mon`);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), `Analytics: ${SHOP}`);
    assert.equal(
      await page.getByRole('link', { name: 'shop', exact: true }).first().getAttribute('href'),
      '/services/shop',
    );

    const total = async (key: string) => {
      const stat = page.locator(`[data-total="${key}"]`);
      return {
        value: await stat.locator('.value').textContent(),
        change: await stat.locator('.change').textContent(),
        tone: await stat.locator('.change').getAttribute('data-tone'),
      };
    };
    assert.deepEqual(await total('visitors'), { value: '1,234', change: '+23%', tone: 'better' });
    assert.deepEqual(await total('views'), { value: '4,321', change: '−4%', tone: 'worse' });
    assert.deepEqual(await total('visits'), { value: '1,500', change: 'no change', tone: 'same' });
    assert.deepEqual(await total('bounce'), { value: '42.5%', change: '+2.5 pts', tone: 'worse' });
    assert.deepEqual(await total('time'), { value: '1:35', change: '+19%', tone: 'better' });
    assert.match(String(await page.locator('[data-total="time"] .note').textContent()), /was 1:20/);
    await page.locator('[data-chart="traffic"] canvas').first().waitFor();

    // Top lists: ten rows each, bars of their share, values in words.
    const pagesList = page.locator('[data-list="pages"]');
    assert.equal(await pagesList.locator('tbody tr').count(), 10);
    assert.deepEqual(
      await pagesList
        .locator('tbody tr')
        .evaluateAll((rows) => rows.slice(0, 2).map((r) => r.getAttribute('data-value'))),
      ['/', '/pricing'],
    );
    // `/`: 1,200 views of the range's 4,321.
    const bar = await pagesList
      .locator('tbody tr')
      .first()
      .locator('.dim-bar')
      .evaluate((el) => el.style.width);
    assert.equal(Number.parseFloat(bar).toFixed(1), ((1200 / 4321) * 100).toFixed(1));
    assert.match(String(await pagesList.locator('.card-head').textContent()), /42 in all/);
    const countries = await page.locator('[data-list="countries"] tbody td.dim-value').allTextContents();
    assert.deepEqual(countries, ['Germany', 'United States', 'France']);
    assert.equal(
      await page.locator('[data-list="referrers"] tbody td.dim-value').first().textContent(),
      'Direct',
    );
    assert.equal(
      await page.locator('[data-list="devices"] tbody td.dim-value').first().textContent(),
      'Desktop',
    );
    assert.match(String(await page.locator('[data-list="utmMediums"]').textContent()), /None in this range/);
    assert.equal(await page.locator('[data-list="countries"]').getByRole('button').count(), 0, 'all shown');

    // Web Vitals: p75 in the colour of its rating, its word and shape too.
    const vital = (name: string) => page.locator(`[data-vital="${name}"]`);
    assert.equal(await vital('lcp').locator('.vital-value').getAttribute('data-rating'), 'needs-improvement');
    assert.match(String(await vital('lcp').textContent()), /2\.60 s.*Needs improvement · 812 loads/);
    assert.match(String(await vital('cls').locator('.vital-value').textContent()), /0\.31/);
    assert.match(String(await vital('ttfb').textContent()), /not measured/);
    const colour = (name: string) =>
      vital(name)
        .locator('.vital-value')
        .evaluate((el) => getComputedStyle(el).color);
    assert.equal(await colour('lcp'), await themeColour(page, '--degraded'));
    assert.equal(await colour('cls'), await themeColour(page, '--down'));
    assert.equal(await colour('inp'), await themeColour(page, '--up'));
    const pricing = page.getByTestId('vitals-pages').locator('tr[data-page="/pricing"]');
    assert.match(String(await pricing.textContent()), /4\.20 s\s*\(Poor\)/);
    // Single pages' vitals are kept by the day: the table says they begin before the range.
    assert.match(
      String(await page.getByTestId('vitals-pages-since').textContent()),
      /^Per page: page loads since .+, as single pages are kept by the UTC day\.$/,
    );

    // Error groups: place, count, relative times, new, and the deploy they followed.
    const first = page.locator('tr[data-group="00000000000000e1"]');
    const text = String(await first.textContent());
    assert.match(text, /TypeErrornew/);
    assert.match(text, /Cannot read properties of undefined \(reading 'price'\)/);
    assert.match(text, /https:\/\/shop\.example\.com\/assets\/app\.js:120:17/);
    assert.equal(await first.locator('td').nth(1).textContent(), '57');
    assert.equal(await first.locator('td').nth(2).textContent(), '5 min ago');
    assert.equal(await first.locator('td').nth(3).textContent(), '2 h ago');
    const deploy = first.getByRole('link', { name: 'v2.4.0' });
    assert.equal(await deploy.getAttribute('href'), '/services/shop');
    assert.match(text, /20 min before first seen/);
    const second = page.locator('tr[data-group="00000000000000e2"]');
    assert.ok(String(await second.textContent()).includes(hostileMessage), 'shown as the browser sent it');
    assert.equal(await second.locator('img').count(), 0, 'never read as HTML');
    assert.equal(await second.locator('.badge-new').count(), 0);
    assert.match(String(await second.textContent()), /unknown script/);

    const notice = page.locator('[data-warning="proxy"]');
    assert.match(
      String(await notice.textContent()),
      /37 visitors share one address: an address in 198\.51\.100\.0\/24 sent 12%/,
    );
    assert.match(String(await notice.textContent()), /trusted_proxies/);
    assert.equal(await page.getByTestId('omitted').count(), 0, 'nothing left out over 24 hours');
    assert.deepEqual(
      await page.evaluate(() => (window as unknown as { violations: string[] }).violations),
      [],
      "bars and charts run under the panel's Content-Security-Policy",
    );
    await page.screenshot({ path: artifactPath('51-analytics-site.png'), fullPage: true });
  });
});

test('a list beyond its ten rows: a search asked once typing pauses, a limit, and back', async () => {
  await withPage('analytics-more', async (page) => {
    const served = await serveAnalytics(page, T0, [SHOP]);
    await page.goto(`${base}/analytics?site=${SHOP}&range=7d`);
    const list = page.locator('[data-list="pages"]');
    await list.locator('tbody tr').first().waitFor();
    await list.getByRole('button', { name: 'More pages…' }).click();
    const search = list.getByLabel('Search pages');
    assert.equal(
      await search.evaluate((el) => el === document.activeElement),
      true,
      'the search box has the focus',
    );
    await list
      .getByTestId('more-count')
      .filter({ hasText: `${pages.length} of ${pages.length}` })
      .waitFor();
    assert.equal(await list.locator('tbody tr').count(), pages.length);

    // Typed key by key: the server hears the word once typing pauses, not each letter. (A browser
    // slowed by a busy machine may pause once mid-word; never at every letter.)
    await search.pressSequentially('POST-1', { delay: 30 });
    await list.getByTestId('more-count').filter({ hasText: '11 of 11 matching “POST-1”' }).waitFor();
    assert.equal(await list.locator('tbody tr').count(), 11);
    const searches = served.lists.map((u) => u.searchParams.get('search'));
    assert.equal(searches[0], '');
    assert.equal(searches.at(-1), 'POST-1');
    assert.ok(searches.length <= 3, `asked once a pause, not once a letter: ${JSON.stringify(searches)}`);
    const last = served.lists.at(-1)!;
    assert.equal(last.pathname, '/api/v1/analytics/pages');
    assert.deepEqual(
      [last.searchParams.get('site'), last.searchParams.get('range'), last.searchParams.get('limit')],
      [SHOP, '7d', '100'],
    );
    // The list shows the 100's answer (the same 11 rows) until the 250's comes: wait for that read.
    const wider = page.waitForResponse((r) => new URL(r.url()).searchParams.get('limit') === '250');
    await list.getByLabel('Rows').selectOption('250');
    await wider;
    await list.getByTestId('more-count').filter({ hasText: '11 of 11' }).waitFor();
    assert.equal(served.lists.at(-1)?.searchParams.get('limit'), '250');

    await search.fill('nothing like it');
    await list.getByTestId('more-count').filter({ hasText: 'Nothing matches.' }).waitFor();
    await list.getByRole('button', { name: 'Back to the top ten' }).click();
    await list.getByTestId('more-count').waitFor({ state: 'detached' });
    assert.equal(await list.locator('tbody tr').count(), 10);
  });
});

test('the range and the site switch keep each other; a long range says what it leaves out; a site without data says so', async () => {
  await withPage('analytics-range', async (page) => {
    const served = await serveAnalytics(page, T0, [BLOG, SHOP]);
    await page.goto(`${base}/analytics?site=${SHOP}`);
    await page.getByTestId('vitals-pages').waitFor();
    await page.getByRole('group', { name: 'Time range' }).getByRole('button', { name: '1y' }).click();
    await page.waitForURL(`${base}/analytics?site=${SHOP}&range=1y`);
    await page.getByTestId('omitted').waitFor();
    assert.equal(
      await page.getByTestId('omitted').textContent(),
      'Not shown for this range: per-page Web Vitals are not kept this far back; JavaScript errors are kept only until not seen for 35 days.',
    );
    assert.equal(await page.getByTestId('vitals-pages').count(), 0);
    assert.equal(await page.getByTestId('errors').count(), 0);
    assert.equal(served.reads.at(-1)?.searchParams.get('range'), '1y');
    assert.match(String(await page.locator('[data-chart="traffic"] figcaption').textContent()), /per day/);

    // The first site is shown without ?site=; the switcher names every site and keeps the range.
    const switcher = page.getByLabel('Site');
    assert.deepEqual(await switcher.locator('option').allTextContents(), [BLOG, SHOP]);
    await switcher.selectOption(BLOG);
    await page.waitForURL(`${base}/analytics?site=${BLOG}&range=1y`);
    await page.getByTestId('no-data').waitFor();
    assert.match(String(await page.getByTestId('no-data').textContent()), /No page view in this range/);
    assert.equal(await page.locator('[data-list]').count(), 0);
    assert.equal(await page.locator('[data-warning]').count(), 0);
    await page.goto(`${base}/analytics`);
    await page.getByTestId('no-data').waitFor();
    assert.equal(served.reads.at(-1)?.searchParams.get('site'), null);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), `Analytics: ${BLOG}`);
  });
});

test('a viewer reads analytics without a control to add a site', async () => {
  await world.api('POST', '/users', { ...viewerWho, role: 'viewer' });
  const session = await signIn(base, viewerWho);
  await world.page(
    'analytics-viewer',
    async (page) => {
      await serveAnalytics(page, T0, []);
      await page.goto(`${base}/analytics`);
      await page.getByTestId('no-site').waitFor();
      assert.match(
        String(await page.getByTestId('no-site').textContent()),
        /An administrator adds a site here/,
      );
      assert.equal(await page.getByTestId('add-site').count(), 0);
      await page.unrouteAll();
      await serveAnalytics(page, T0, [SHOP]);
      await page.reload();
      await page.getByTestId('totals').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Add a site…' }).count(), 0);
    },
    session,
  );
});

test('an admin adds another site from a site page; the nav leads to analytics', async () => {
  await withPage('analytics-add-another', async (page) => {
    const served = await serveAnalytics(page, T0, [SHOP]);
    await page.goto(base);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Analytics' }).click();
    await page.getByTestId('totals').waitFor();
    await page.getByRole('button', { name: 'Add a site…' }).click();
    const form = page.getByTestId('add-site');
    assert.equal(
      await form.getByLabel('Domain', { exact: true }).evaluate((el) => el === document.activeElement),
      true,
      'the form opens at its first field',
    );
    await form.getByLabel('Domain', { exact: true }).fill(BLOG);
    await form.getByLabel('Service').fill('blog');
    await form.getByRole('checkbox').uncheck();
    await form.getByRole('button', { name: 'Add site' }).click();
    await page.getByTestId('site-added').waitFor();
    assert.deepEqual(served.added.at(-1), { domain: BLOG, service: 'blog', check: null });
    assert.equal(await page.getByTestId('add-site').count(), 0);
    await page.waitForURL(`${base}/analytics?site=${BLOG}&range=24h`);
    await page.getByTestId('no-data').waitFor();
    assert.deepEqual(await page.getByLabel('Site').locator('option').allTextContents(), [BLOG, SHOP]);
  });
});

test('Remove site asks first naming what goes, then removes; a site of mon.toml has no such button', async () => {
  // A site of the real server (no fixture routes), with a typo in its domain.
  const typo = 'shop.exmaple.com';
  await world.api('POST', '/sites', { domain: typo, service: 'typo' });
  const known = async () => (await world.api<AnalyticsRead>('GET', '/analytics')).sites.includes(typo);
  await withPage('analytics-remove-site', async (page) => {
    await page.goto(`${base}/analytics?site=${typo}`);
    await page.getByRole('button', { name: 'Remove site…' }).click();
    await page
      .getByText(`Remove ${typo}? mon stops counting its pages at once, and its visitors, page views`)
      .waitFor();
    assert.match(
      String(await page.locator('.confirm').textContent()),
      /are deleted; the checks of typo stay\. This cannot be undone\./,
    );
    await page.screenshot({ path: artifactPath('analytics-remove-site.png') });
    await page.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await known(), true, 'cancelled: the site stays');
    assert.equal(
      await page
        .getByRole('button', { name: 'Remove site…' })
        .evaluate((el) => el === document.activeElement),
      true,
      'the focus back on the button',
    );

    await page.getByRole('button', { name: 'Remove site…' }).click();
    await page.getByRole('button', { name: 'Remove site', exact: true }).click();
    await page.waitForURL(`${base}/analytics`);
    await page.getByTestId('no-site').waitFor();
    assert.equal(await known(), false);

    // shop.example.com is named in mon.toml (the fixture says so): it goes by taking it out of the file.
    await serveAnalytics(page, T0, [SHOP]);
    await page.goto(`${base}/analytics?site=${SHOP}`);
    await page.getByTestId('totals').waitFor();
    await page.getByRole('button', { name: 'Add a site…' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Remove site…' }).count(), 0);
  });
});

test("the incident page shows the visitors of its service's site, the incident's span shaded", async () => {
  const real = await world.api<IncidentRead>('GET', `/incidents/${incidentId}`);
  assert.equal(real.visitors, null, 'no site is known to the server in this test');
  await withPage('incident-visitors', async (page) => {
    // Without a site: no visitors section.
    await page.goto(`${base}/incidents/${incidentId}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    assert.equal(await page.getByTestId('incident-visitors').count(), 0);

    const visitors = visitorsAround(incidentStart, incidentEnd);
    await page.route(
      (url) => url.pathname === `/api/v1/incidents/${incidentId}`,
      async (route) => {
        const response = await route.fetch();
        const read = (await response.json()) as IncidentRead;
        await route.fulfill({ response, json: { ...read, visitors } });
      },
    );
    await page.reload();
    const section = page.getByTestId('incident-visitors');
    await section.waitFor();
    assert.equal(
      await section.getByTestId('visitors-during').textContent(),
      '83 visitors during the incident.',
    );
    assert.equal(
      await section.getByRole('link', { name: SHOP }).getAttribute('href'),
      `/analytics?site=${SHOP}`,
    );
    const span = section.locator('.chart-span');
    await span.waitFor();
    assert.match(String(await span.getAttribute('title')), /the incident$/);
    const box = await span.boundingBox();
    const plot = await section.locator('.u-over').boundingBox();
    assert.ok(box && plot, 'drawn');
    // One hour of the chart's four (an hour before the start to an hour after the end): a quarter of the plot.
    assert.ok(box.x >= plot.x && box.x + box.width <= plot.x + plot.width + 1, 'inside the plot');
    const share = box.width / plot.width;
    assert.ok(share > 0.2 && share < 0.3, `the span is a quarter of the plot: ${share}`);
    await page.screenshot({ path: artifactPath('52-incident-visitors.png'), fullPage: true });
  });
});
