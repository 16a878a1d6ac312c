import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { CreatedToken } from '../../protocol/accounts.ts';
import type { IncidentsList } from '../../protocol/incidents.ts';
import type { Overview } from '../../protocol/overview.ts';
import type { Created } from '../../protocol/reads.ts';
import type { FakeClock } from '../../server/clock.ts';
import { statement } from '../../server/store/statements.ts';
import { artifactPath, type PanelWorld, startPanelWorld, type Target } from './harness.ts';

/**
 * The overview, the incidents and a check's chart in Chromium. The server runs in this process on a
 * fake clock, so that its tables can be written as the deploy and incident features write them; its
 * check reaches a real loopback target. The story: a check of service shop runs from 09:00 UTC, shop
 * is deployed at 09:03, DNS moves at 09:04, and service db has an open incident from 09:04:30. Later
 * shop is deployed again and its check fails: that opens shop's own incident.
 */

const T0 = Date.UTC(2026, 0, 1, 9, 0);
const MIN = 60_000;
const setupToken = 'setup-token-for-the-incident-pages';
const admin = { email: 'admin@example.com', password: 'correct horse battery staple' };
const incidentId = 'a1b2c3d4e5f60718';

let world: PanelWorld;
let target: Target;
let clock: FakeClock;
let base = '';
let checkId = '';

const run = (ms: number) => world.run(ms);
const api = <T>(method: string, path: string, body?: unknown) => world.api<T>(method, path, body);

const write = (job: (db: DatabaseSync) => void) => world.server.deps.store.writer.run(job);

function recordDeploy(db: DatabaseSync, ts: number, version: string): void {
  statement(
    db,
    `INSERT INTO deploys (service, version, ts, by, url, description, source, sources, host)
     VALUES ('shop', ?, ?, 'ci', 'https://ci.example/runs/42', NULL, 'api', 'api', NULL)`,
  ).run(version, ts);
}

before(async () => {
  world = await startPanelWorld({ at: T0, setupToken, admin });
  ({ target, clock, base } = world);
  const check = { name: 'api', service: 'shop', kind: 'http', target: target.url, everyMs: 10_000 };
  checkId = (await api<Created>('POST', '/checks', check)).id;
  await run(3 * MIN);
  await write((db) => recordDeploy(db, clock.now(), 'v2.4.0'));
  await run(MIN);
  await write((db) =>
    statement(
      db,
      `INSERT INTO changes (ts, kind, what, service, host, by, url, description, source)
       VALUES (?, 'change', 'DNS moved to the new provider', NULL, NULL, 'ops', NULL, NULL, 'api')`,
    ).run(clock.now()),
  );
  await run(MIN / 2);
  await write((db) => {
    statement(
      db,
      `INSERT INTO incidents (id, title, service, started_at) VALUES (?, 'db is down', 'db', ?)`,
    ).run(incidentId, clock.now());
    statement(
      db,
      `INSERT INTO incident_alerts (incident, key, check_id, service, name, detail, opened_at)
       VALUES (?, 'check:0123456789abcdef', '0123456789abcdef', 'db', 'primary', 'connection refused', ?)`,
    ).run(incidentId, clock.now());
  });
  await run(MIN / 2);
  // Requests forwarded by a proxy mon does not trust (this test, on loopback).
  for (let i = 0; i < 3; i++)
    await fetch(`${base}/healthz`, { headers: { 'X-Forwarded-For': '203.0.113.9' } });
});

after(() => world?.close());

const withPage = (name: string, fn: (page: Page) => Promise<void>) => world.page(name, fn);

test('the overview: the open incident on top, warnings, each check with its strip and latency, deploys and changes', async () => {
  const overview = await api<Overview>('GET', '/overview');
  const [incident] = overview.incidents;
  assert.equal(incident?.id, incidentId);
  await withPage('overview', async (page) => {
    await page.goto(base);
    const card = page.locator(`.open-incidents li[data-incident="${incidentId}"]`);
    await card.waitFor();
    assert.equal(await page.getByRole('heading', { name: '1 open incident' }).count(), 1);
    const text = String(await card.textContent());
    assert.match(text, /db is down/);
    assert.match(text, /Open/);
    assert.ok(
      text.includes(incident.topCause ? incident.topCause.title : 'No likely cause found'),
      `the card names what the read names: ${text}`,
    );
    // The incidents come before the services.
    const order = await page.evaluate(() => {
      const first = document.querySelector('.open-incidents');
      const service = document.querySelector('.service-head');
      return first && service ? first.compareDocumentPosition(service) & Node.DOCUMENT_POSITION_FOLLOWING : 0;
    });
    assert.ok(order, 'open incidents are on top');

    for (const warning of ['channels', 'sharedHost', 'untrustedProxy']) {
      await page.locator(`[data-warning="${warning}"]`).waitFor();
    }
    assert.match(
      String(await page.locator('[data-warning="channels"]').textContent()),
      /nobody will be told/,
    );
    assert.match(
      String(await page.locator('[data-warning="untrustedProxy"]').textContent()),
      /127\.0\.0\.1 forwarded/,
    );

    const row = page.locator('li[data-check="api"]');
    const slots = String(await row.locator('.strip').getAttribute('data-slots')).split(' ');
    assert.equal(slots.length, 24, 'a day in hours');
    assert.equal(slots.at(-1), 'up', 'the runs of this hour');
    assert.deepEqual(new Set(slots.slice(0, -1)), new Set(['-']), 'nothing before the check was made');
    assert.match(
      String(await row.locator('.strip').getAttribute('aria-label')),
      /^Last 24h: 24 × 1 h: 1 up, 23 without runs$/,
    );
    assert.match(String(await row.locator('.latency').textContent()), /\d+ ms last \d+ ms/);

    const recent = page.getByTestId('recent-changes');
    const items = await recent.locator('li').allTextContents();
    assert.equal(items.length, 2);
    assert.match(items[0]!, /change: DNS moved to the new provider\s*by ops/);
    assert.match(items[1]!, /deploy shop v2\.4\.0\s*by ci/);
    assert.equal(
      await recent.getByRole('link', { name: 'deploy shop v2.4.0' }).getAttribute('href'),
      'https://ci.example/runs/42',
    );
    await page.screenshot({ path: artifactPath('30-overview-incident.png'), fullPage: true });

    // The 1-hour range: a strip of minutes.
    await page.getByRole('button', { name: '1h' }).click();
    await page.waitForURL(/\?range=1h$/);
    await row.locator('.strip[aria-label^="Last 1h: 60 × 1 min"]').waitFor();
    const minutes = String(await row.locator('.strip').getAttribute('data-slots')).split(' ');
    assert.deepEqual(minutes.slice(-6), ['-', 'up', 'up', 'up', 'up', 'up'], 'made at 09:00, now 09:05');
  });
});

test('the check chart marks the deploys and changes of its range, with their words beside it', async () => {
  await withPage('markers', async (page) => {
    await page.goto(`${base}/checks/${checkId}?range=1h`);
    const chart = page.locator('.chart');
    await chart.locator('canvas').first().waitFor();
    const deploy = chart.locator('.chart-marker[data-kind="deploy"]');
    const change = chart.locator('.chart-marker[data-kind="change"]');
    await deploy.waitFor();
    assert.equal(await deploy.count(), 1);
    assert.equal(await change.count(), 1);
    assert.match(String(await deploy.getAttribute('title')), /deploy shop v2\.4\.0 · by ci$/);
    const [d, c] = [await deploy.boundingBox(), await change.boundingBox()];
    const box = await chart.locator('.u-over').boundingBox();
    assert.ok(d && c && box);
    assert.ok(d.x > box.x && c.x > d.x && c.x < box.x + box.width, 'in time order, inside the plot');
    const list = await chart.locator('.markers li').allTextContents();
    assert.equal(list.length, 2);
    assert.match(list[0]!, /deploy shop v2\.4\.0/);
    await page.screenshot({ path: artifactPath('31-check-markers.png'), fullPage: true });

    // A range without them has no marks.
    await write((db) => recordDeploy(db, T0 - 3 * 86_400_000, 'v2.3.9'));
    await page.goto(`${base}/checks/${checkId}?range=24h`);
    await chart.locator('canvas').first().waitFor();
    await chart.locator('.chart-marker').first().waitFor();
    assert.equal(await chart.locator('.chart-marker[data-kind="deploy"]').count(), 1, 'v2.3.9 is older');
  });
});

test('the incident page: the deploy before the failure is its first likely cause; acknowledge', async () => {
  // A second deploy through the deploy API, as CI sends it, then the check fails twice in a row: shop's
  // incident opens with that deploy as its first likely cause.
  const { token } = await api<CreatedToken>('POST', '/tokens', { scope: 'deploy', label: 'ci' });
  const deployed = await fetch(`${base}/api/deploys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ service: 'shop', version: 'v2.5.0', by: 'ci', url: 'https://ci.example/runs/43' }),
  });
  assert.equal(deployed.status, 201, await deployed.text());
  await run(MIN);
  target.setFailing(true);
  await run(30_000);
  target.setFailing(false);
  const { incidents } = await api<IncidentsList>('GET', '/incidents');
  const opened = incidents.find(
    (i) => i.state === 'open' && i.id !== incidentId && i.services.includes('shop'),
  );
  assert.ok(opened, JSON.stringify(incidents));
  await withPage('incident', async (page) => {
    await page.goto(`${base}/incidents/${opened.id}`);
    const first = page.locator('.cause[data-rank="1"]');
    await first.waitFor();
    assert.equal(await first.getAttribute('data-kind'), 'deploy');
    assert.match(String(await first.locator('.cause-head').textContent()), /v2\.5\.0.*Deploy\s*\d+%/);
    assert.ok((await first.locator('.factors tr').count()) >= 2, 'the score breakdown');
    assert.match(String(await first.locator('.evidence').textContent()), /v2\.5\.0.*by ci/);
    await page.getByTestId('alerts').locator(`tr[data-alert="check:${checkId}"]`).waitFor();
    await page.locator('.incident-chart .chart-marker[data-kind="deploy"]').first().waitFor();
    assert.ok((await page.getByTestId('timeline').locator('tr[data-kind="deploy"]').count()) >= 1);
    await page.screenshot({ path: artifactPath('32-incident.png'), fullPage: true });

    await page.getByRole('button', { name: 'Acknowledge' }).click();
    await page.getByTestId('acknowledged').waitFor();
    assert.match(String(await page.getByTestId('acknowledged').textContent()), /admin@example\.com/);
    assert.equal(await page.getByRole('button', { name: 'Acknowledge' }).count(), 0);
    assert.equal(await page.locator('h1 .status').getAttribute('data-state'), 'acknowledged');
  });
});

test('the incident list: open incidents on top, then those resolved in range', async () => {
  await write((db) =>
    statement(
      db,
      `INSERT INTO incidents (id, title, service, started_at, resolved_at) VALUES ('f000000000000001', 'shop was slow', 'shop', ?, ?)`,
    ).run(T0 - 2 * 86_400_000, T0 - 2 * 86_400_000 + 20 * MIN),
  );
  const { incidents } = await api<IncidentsList>('GET', '/incidents');
  await withPage('incidents', async (page) => {
    await page.goto(`${base}/incidents`);
    const rows = page.getByTestId('incidents').locator('tbody tr');
    await rows.first().waitFor();
    const shown = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-incident')));
    assert.deepEqual(
      shown,
      incidents.map((i) => i.id),
    );
    const states = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-state')));
    const firstResolved = states.indexOf('resolved');
    assert.ok(firstResolved > 0 && states.slice(firstResolved).every((s) => s === 'resolved'), states.join());
    assert.match(String(await rows.last().textContent()), /shop was slow.*Resolved|Resolved.*shop was slow/);
    await page.screenshot({ path: artifactPath('33-incidents.png'), fullPage: true });
    await page.getByRole('link', { name: 'db is down' }).click();
    await page.waitForURL(new RegExp(`/incidents/${incidentId}$`));
  });
});
