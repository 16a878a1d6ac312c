import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { buildAgent } from '../../agent/build.ts';
import { REFRESH_MS } from '../../panel/src/features/hosts/keys.ts';
import type { SampleFrame } from '../../protocol/agent.ts';
import type { AddedHost, HostRead, HostsList } from '../../protocol/hosts.ts';
import type { Created, ServicesList } from '../../protocol/reads.ts';
import { addHostSample, addItemSample, hostMetricsOf } from '../../server/hosts/rollups.ts';
import { hostByToken } from '../../server/hosts/store.ts';
import { statement } from '../../server/store/statements.ts';
import { tempDir } from '../../server/testing.ts';
import { artifactPath, type PanelWorld, signIn, startPanelWorld } from './harness.ts';

/**
 * Hosts in Chromium. The server runs in this process on a fake clock; what an agent would have sent is
 * written through the real writer with the rollup functions the frames use (samples every minute for two
 * hours, containers, units, log lines), and a failing CPU alert with the incident it opened. The story:
 * web-1 is added in the panel, its agent has been sending since 07:00, and at 08:50 its CPU alert opened
 * an incident; db-1 is named in mon.toml.
 */

const T0 = Date.UTC(2026, 0, 1, 9, 0);
const MIN = 60_000;
const setupToken = 'setup-token-for-the-host-pages';
const admin = { email: 'admin@example.com', password: 'correct horse battery staple' };
const incidentId = 'c0ffee0000000001';
const incidentStart = T0 - 10 * MIN;
/** A log line as an agent could send it: text, which the page must never read as HTML. */
const hostileLog = '<img src=x onerror="document.title=1"> OOM killer woke up';

let world: PanelWorld;
const agentDir = tempDir('mon-panel-agent-');
let servedVersion = '';
let base = '';
let checkId = '';

const api = <T>(method: string, path: string, body?: unknown) => world.api<T>(method, path, body);
const write = (job: (db: DatabaseSync) => void) => world.server.deps.store.writer.run(job);
const withPage = (name: string, fn: (page: Page) => Promise<void>) => world.page(name, fn);

function sampleAt(ts: number, cpu: number): SampleFrame {
  return {
    kind: 'sample',
    ts,
    cpu,
    memory: { used: 6 * 2 ** 30, total: 16 * 2 ** 30 },
    swap: { used: 2 ** 28, total: 2 ** 30 },
    disks: [
      { mount: '/', device: '/dev/sda1', fstype: 'ext4', used: 40 * 2 ** 30, size: 100 * 2 ** 30 },
      { mount: '/boot', device: '/dev/sda2', fstype: 'vfat', used: 475 * 2 ** 20, size: 500 * 2 ** 20 },
    ],
    diskIo: { readBps: 2 * 2 ** 20, writeBps: 2 ** 20 },
    net: { rxBps: 3 * 2 ** 20, txBps: 2 ** 19 },
    load: [1.5, 1.2, 0.9],
    temperatures: [
      { sensor: 'coretemp Package id 0', celsius: 61 },
      { sensor: 'nvme Composite', celsius: 44 },
    ],
    containers: null,
    units: null,
  };
}

/** What web-1's agent has sent since 07:00: hello, a sample a minute, containers, units, log lines. */
function seedAgent(db: DatabaseSync): void {
  const hello = {
    agentVersion: '0.9.0',
    protocol: 1,
    // An older agent: it cannot run ping checks.
    capabilities: ['headers'],
    hostname: 'web-1.internal',
    os: 'Debian GNU/Linux 12 (bookworm)',
    kernel: '6.1.0-18-amd64',
    arch: 'x64',
    cores: 4,
  };
  let latest = sampleAt(T0, 0);
  for (let ts = T0 - 2 * 60 * MIN; ts < T0; ts += MIN) {
    // Busy around the incident's start.
    const cpu = Math.abs(ts - incidentStart) <= 5 * MIN ? 97 : 20 + ((ts / MIN) % 10);
    latest = sampleAt(ts, cpu);
    addHostSample(db, 'web-1', ts, hostMetricsOf(latest, []));
    addItemSample(db, 'web-1', 'container', 'shop-api', ts, 35, 512 * 2 ** 20);
    addItemSample(db, 'web-1', 'container', 'redis', ts, 3, 64 * 2 ** 20);
    addItemSample(db, 'web-1', 'unit', 'backup.service', ts, 1, 32 * 2 ** 20);
  }
  statement(
    db,
    `UPDATE hosts SET agent = ?, latest = ?, first_seen = ?, last_seen = ?, declared = ? WHERE name = 'web-1'`,
  ).run(
    JSON.stringify(hello),
    JSON.stringify(latest),
    T0 - 2 * 60 * MIN,
    T0 - 10_000,
    JSON.stringify({ checks: [], problems: ['line 7: a check needs a command'] }),
  );
  const item = statement(
    db,
    `INSERT INTO host_items (host, kind, name, id, state, sub_state, health, restarts, exit_code, image, labels,
       cpu, memory, first_seen, updated_at)
     VALUES ('web-1', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const since = T0 - 2 * 60 * MIN;
  item.run(
    'container',
    'shop-api',
    'a000000000000001',
    'running',
    null,
    'healthy',
    2,
    null,
    'shop:2.4.0',
    JSON.stringify({ 'mon.service': 'shop' }),
    35,
    512 * 2 ** 20,
    since,
    T0 - MIN,
  );
  item.run(
    'container',
    'redis',
    'a000000000000002',
    'running',
    null,
    null,
    0,
    null,
    'redis:7',
    '{}',
    3,
    64 * 2 ** 20,
    since,
    T0 - MIN,
  );
  item.run(
    'unit',
    'backup.service',
    'a000000000000003',
    'failed',
    'failed',
    null,
    4,
    null,
    null,
    null,
    null,
    null,
    since,
    T0 - MIN,
  );
  const log = statement(db, "INSERT INTO agent_logs (host, ts, level, text) VALUES ('web-1', ?, ?, ?)");
  log.run(incidentStart - 2 * MIN, 'info', 'sampling every 15 s');
  log.run(incidentStart + MIN, 'warn', hostileLog);
  // The CPU alert, failing since the start, and the incident it opened.
  statement(
    db,
    `INSERT INTO host_alert_states (host, key, above_since, failing_since, value, detail)
     VALUES ('web-1', 'host:web-1:cpu', ?, ?, 97, 'CPU above 90% for 5 minutes (97%)')`,
  ).run(incidentStart - 5 * MIN, incidentStart);
  statement(
    db,
    `INSERT INTO incidents (id, title, service, started_at) VALUES (?, 'web-1: CPU above 90%', NULL, ?)`,
  ).run(incidentId, incidentStart);
  statement(
    db,
    `INSERT INTO incident_alerts (incident, key, check_id, service, host, name, detail, opened_at)
     VALUES (?, 'host:web-1:cpu', NULL, NULL, 'web-1', 'web-1 CPU', 'CPU above 90% for 5 minutes (97%)', ?)`,
  ).run(incidentId, incidentStart);
}

before(async () => {
  // The agent file mon serves: web-1's agent (0.9.0) runs another, so it has an update.
  const agentFile = join(agentDir.dir, 'mon-agent.mjs');
  servedVersion = (await buildAgent(agentFile)).version;
  world = await startPanelWorld({ at: T0, setupToken, admin, hosts: { agentFile } });
  ({ base } = world);
  // Service shop exists, so that the container labelled for it belongs to it.
  await api<Created>('POST', '/checks', {
    name: 'shop-home',
    service: 'shop',
    kind: 'http',
    target: world.target.url,
    everyMs: 60_000,
  });
});

after(async () => {
  await world?.close();
  agentDir.remove();
});

/** Reads what a textarea or input labelled `label` holds. */
const fieldValue = (page: Page, label: string) => page.getByLabel(label, { exact: true }).inputValue();

test('adding a host shows its token and install commands once; a new token asks first and replaces it', async () => {
  await withPage('hosts-add', async (page) => {
    await page.goto(`${base}/hosts`);
    await page.getByTestId('no-hosts').waitFor();
    assert.match(String(await page.getByTestId('no-hosts').textContent()), /token and an install command/);
    assert.equal(await page.getByRole('link', { name: 'Hosts' }).getAttribute('aria-current'), 'page');

    await page.getByLabel('Name').fill('web-1');
    const answer = page.waitForResponse(
      (r) => r.url().endsWith('/api/v1/hosts') && r.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Add host' }).click();
    const added = (await (await answer).json()) as AddedHost;
    assert.match(added.token, /^bth_/);
    const installed = page.getByTestId('installed');
    await installed.waitFor();
    assert.match(String(await installed.textContent()), /will not be shown again/);
    // A socket mounted :ro can still be written through: the page does not promise otherwise.
    assert.match(String(await installed.textContent()), /:ro does not stop writes through a socket/);
    assert.doesNotMatch(String(await installed.textContent()), /socket mounted\s+read-only/);
    assert.equal(await fieldValue(page, 'Host token'), added.token);
    assert.equal(await fieldValue(page, 'Docker command'), added.install.docker);
    assert.equal(await fieldValue(page, 'systemd install'), added.install.systemd);
    assert.equal(await installed.getByRole('button', { name: 'Copy' }).count(), 3);
    // The focus moves to what must be copied (in an effect after it shows).
    await page.locator('#installed-title:focus').waitFor();
    await page.getByTestId('hosts').locator('tr[data-host="web-1"]').waitFor();
    assert.match(String(await page.locator('tr[data-host="web-1"]').textContent()), /web-1.*No agent yet/);
    await page.screenshot({ path: artifactPath('40-host-added.png'), fullPage: true });

    // Added again from the list: refused there, since it would replace the token.
    await page.getByLabel('Name').fill('web-1');
    await page.getByRole('button', { name: 'Add host' }).click();
    await page.getByText('web-1 exists: to replace its token, use New token on its page').waitFor();

    await page.reload();
    await page.getByTestId('hosts').waitFor();
    assert.equal(await page.getByTestId('installed').count(), 0);
    assert.ok(!(await page.content()).includes(added.token), 'the token is gone after a reload');

    // A new token on the host page: Cancel changes nothing; the confirmed one replaces the old.
    await page.getByRole('link', { name: 'web-1' }).click();
    await page.getByRole('button', { name: 'New token…' }).click();
    await page.getByText('The current token of web-1 stops working at once').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    assert.ok(hostByToken(world.server.deps.store.read, added.token), 'Cancel keeps the token');
    await page.getByRole('button', { name: 'New token…' }).click();
    const again = page.waitForResponse(
      (r) => r.url().endsWith('/api/v1/hosts') && r.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Make a new token' }).click();
    const replaced = (await (await again).json()) as AddedHost;
    assert.equal(replaced.replaced, true);
    await page.getByTestId('installed').waitFor();
    assert.match(
      String(await page.getByTestId('installed').textContent()),
      /old token of web-1 has stopped working/,
    );
    assert.equal(await fieldValue(page, 'Host token'), replaced.token);
    assert.equal(hostByToken(world.server.deps.store.read, added.token), undefined);
    await page.getByRole('button', { name: /^Done/ }).click();
    await page.getByTestId('installed').waitFor({ state: 'detached' });
  });
});

test('the host page: agent, update note, alert and its incident, charts of seeded samples, filesystems, items with their charts, checks', async () => {
  await write(seedAgent);
  checkId = (
    await api<Created>('POST', '/checks', {
      name: 'shop-local',
      service: 'shop',
      kind: 'tcp',
      target: '127.0.0.1:6379',
      everyMs: 60_000,
      from: 'web-1',
    })
  ).id;
  await withPage('host-page', async (page) => {
    await page.goto(`${base}/hosts/web-1`);
    const agent = page.getByTestId('agent');
    await agent.waitFor();
    const facts = String(await agent.textContent());
    for (const fact of [
      '0.9.0',
      'Debian GNU/Linux 12 (bookworm)',
      '6.1.0-18-amd64',
      'web-1.internal',
      'Connected',
    ])
      assert.ok(facts.includes(fact), `${fact} in ${facts}`);
    assert.match(
      String(await page.getByTestId('outdated').textContent()),
      /\(version 0\.9\.0\) is too old for ping checks: update it/,
    );
    const update = String(await page.getByTestId('update').textContent());
    assert.ok(update.startsWith('Update available. The agent on this host runs version 0.9.0'), update);
    assert.ok(update.includes(`mon serves ${servedVersion}. Restart it to update it`), update);
    assert.ok(update.includes('systemctl restart mon-agent'), update);
    assert.ok(update.includes('docker restart mon-agent'), update);

    const alert = page.getByTestId('alerting').locator('li[data-alert="host:web-1:cpu"]');
    assert.match(String(await alert.textContent()), /CPU.*CPU above 90% for 5 minutes \(97%\)/);
    assert.equal(
      await alert.getByRole('link', { name: 'incident' }).getAttribute('href'),
      `/incidents/${incidentId}`,
    );

    // Every chart of a host with swap and sensors, drawn.
    for (const chart of ['cpu', 'memory', 'swap', 'disk', 'io', 'net', 'load', 'temperature']) {
      await page.locator(`figure[data-chart="${chart}"] canvas`).first().waitFor();
    }
    assert.equal(await page.getByTestId('now-memory').textContent(), '37.5% of 16 GiB');
    // A new sample arrives: the page reads it on its 15-second timer, without a live key.
    await write((db) =>
      statement(db, "UPDATE hosts SET latest = ? WHERE name = 'web-1'").run(
        JSON.stringify(sampleAt(T0, 12.5)),
      ),
    );
    await page.clock.runFor(REFRESH_MS);
    await page.getByTestId('now-cpu').getByText('12.5%').waitFor();
    assert.equal(await page.getByTestId('now-disk').textContent(), '95%', '/boot is the fullest');
    assert.equal(await page.getByTestId('now-temperature').textContent(), '61 °C');
    assert.match(String(await page.locator('figure[data-chart="cpu"] .u-legend').textContent()), /mean.*max/);
    const boot = page.getByTestId('filesystems').locator('tr[data-mount="/boot"]');
    assert.match(String(await boot.textContent()), /\/boot.*475 MiB of 500 MiB.*95%/);
    assert.equal(await boot.getAttribute('data-ignored'), null);

    // Containers and units as last seen; a chart of one on demand.
    const shop = page.getByTestId('containers').locator('tr[data-item="shop-api"]');
    assert.match(
      String(await shop.textContent()),
      /shop-api.*shop:2\.4\.0.*running, healthy.*2.*35%.*512 MiB.*shop/,
    );
    assert.match(
      String(await page.getByTestId('units').locator('tr[data-item="backup.service"]').textContent()),
      /backup\.service.*failed \(failed\).*4.*none/,
    );
    const series = page.waitForResponse((r) =>
      r.url().includes('/api/v1/hosts/web-1/containers/shop-api?range=24h'),
    );
    await shop.getByRole('button', { name: 'Show the chart of shop-api' }).click();
    await series;
    const itemCharts = page.locator('[data-item-chart="shop-api"]');
    await itemCharts.locator('canvas').first().waitFor();
    assert.equal(await itemCharts.locator('figure').count(), 2, 'CPU and memory');

    // The checks from this host, and the checks.toml line the agent could not use.
    const checks = page.getByTestId('host-checks');
    assert.equal(
      await checks.getByRole('link', { name: 'shop-local' }).getAttribute('href'),
      `/checks/${checkId}`,
    );
    assert.match(
      String(await page.getByTestId('check-problems').textContent()),
      /line 7: a check needs a command/,
    );
    await page.screenshot({ path: artifactPath('41-host-page.png'), fullPage: true });

    // Another range: the charts read it.
    const hour = page.waitForResponse((r) => r.url().includes('/api/v1/hosts/web-1?range=1h'));
    await page.getByRole('button', { name: '1h' }).click();
    await hour;
    await page.waitForURL(/\?range=1h$/);
    await page.locator('figure[data-chart="cpu"] canvas').first().waitFor();
  });
});

test('the host list shows each host with its agent, numbers, alerts and discovered items; a viewer sees no control', async () => {
  const { hosts } = await api<HostsList>('GET', '/hosts');
  const web = hosts.find((h) => h.name === 'web-1');
  assert.ok(web);
  await withPage('hosts-list', async (page) => {
    await page.goto(`${base}/hosts`);
    const row = page.locator('tr[data-host="web-1"]');
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    assert.match(cells[1]!, /Connected/);
    assert.equal(web.agent?.current, false);
    assert.match(
      cells[1]!,
      /Update available: systemctl restart mon-agent or docker restart mon-agent/,
      'an agent of another build than mon serves',
    );
    assert.equal(cells[2], `${web.cpu}%`);
    assert.equal(cells[3], '37.5%');
    assert.equal(cells[5], `▼${web.alerting}`, 'a shape with the count');
    assert.equal(cells[6], String(web.discovered));
    assert.equal(web.alerting, 1);
  });
  // A viewer reads the same, without a control that changes something.
  const viewer = { email: 'viewer@example.com', password: 'another horse battery staple' };
  await api('POST', '/users', { ...viewer, role: 'viewer' });
  const session = await signIn(base, viewer);
  await world.page(
    'hosts-viewer',
    async (page) => {
      await page.goto(`${base}/hosts`);
      await page.locator('tr[data-host="web-1"]').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Add host' }).count(), 0);
      await page.getByRole('link', { name: 'web-1' }).click();
      await page.getByTestId('thresholds-read').waitFor();
      assert.equal(await page.getByRole('button', { name: 'New token…' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Remove host…' }).count(), 0);
      assert.equal(await page.getByTestId('discovered').getByRole('button').count(), 0);
      assert.equal(await page.getByTestId('thresholds-file').count(), 0, 'not a file host');
    },
    session,
  );
});

test('thresholds are saved for a host of the panel and read-only for a host of mon.toml', async () => {
  await withPage('thresholds', async (page) => {
    await page.goto(`${base}/hosts/web-1`);
    const card = page.getByTestId('thresholds');
    await card.getByLabel('CPU (%)').waitFor();
    assert.equal(await card.getByLabel('CPU (%)').inputValue(), '90', 'the defaults');
    await card.getByLabel('CPU (%)').fill('250');
    await card.getByRole('button', { name: 'Save thresholds' }).click();
    await card.getByText('must be a number from 1 to 100').waitFor();
    assert.equal(await card.getByLabel('CPU (%)').getAttribute('aria-invalid'), 'true');

    await card.getByLabel('CPU (%)').fill('95');
    await card.getByLabel('Swap (%)').fill('');
    await card.getByLabel('Ignored mounts').fill('/boot');
    await card.getByRole('button', { name: 'Save thresholds' }).click();
    await card.getByText('Saved').waitFor();
    const read = await api<HostRead>('GET', '/hosts/web-1');
    assert.deepEqual(read.alerts, {
      cpu: 95,
      memory: 90,
      swap: null,
      disk: 90,
      temperature: 85,
      ignoreMounts: ['/boot'],
    });
    assert.equal(read.alertsFrom, 'api');
    // /boot is ignored now: no longer the fullest disk.
    await page.getByTestId('filesystems').locator('tr[data-mount="/boot"][data-ignored]').waitFor();
    await page.getByTestId('now-disk').getByText('40%').waitFor();
    assert.equal(await card.getByLabel('Swap (%)').inputValue(), '');

    writeFileSync(
      join(world.server.dataDir, 'mon.toml'),
      '[[host]]\nname = "db-1"\ncpu = 80\nswap = false\n',
    );
    world.server.deps.config.reload();
    await page.goto(`${base}/hosts/db-1`);
    const file = page.getByTestId('thresholds-read');
    await file.waitFor();
    assert.match(String(await file.textContent()), /CPUabove 80%.*Swapoff/);
    assert.match(
      String(await page.getByTestId('thresholds-file').textContent()),
      /named in mon\.toml.*\[\[host\]\] table/,
    );
    assert.equal(await page.getByRole('button', { name: 'Save thresholds' }).count(), 0);
    assert.match(
      String(await page.getByTestId('agent').textContent()),
      /No agent has connected for db-1 yet/,
    );
  });
});

test('discovered items: one dismissed, one monitored as a new service', async () => {
  await withPage('discovered', async (page) => {
    await page.goto(`${base}/hosts/web-1`);
    const items = page.getByTestId('discovered-items');
    await items.locator('tr[data-discovered="redis"]').waitFor();
    assert.equal(
      await items.locator('tr[data-discovered]').count(),
      2,
      'redis and backup.service; shop-api is of shop',
    );

    await page.getByRole('button', { name: 'Dismiss backup.service' }).click();
    await items.locator('tr[data-discovered="backup.service"]').waitFor({ state: 'detached' });

    await items.locator('tr[data-discovered="redis"]').getByRole('button', { name: 'Monitor' }).click();
    const service = page.getByRole('textbox', { name: 'Service' });
    assert.equal(await service.inputValue(), 'redis', "the item's name by default");
    await service.fill('cache');
    await page.getByRole('button', { name: 'Monitor in this service' }).click();
    await page.getByTestId('discovered').getByRole('link', { name: 'cache' }).waitFor();
    await page.getByText('Every container and unit of this host belongs to a service').waitFor();
    const { services } = await api<ServicesList>('GET', '/services');
    assert.ok(
      services.some((s) => s.name === 'cache'),
      JSON.stringify(services),
    );
    const read = await api<HostRead>('GET', '/hosts/web-1');
    assert.deepEqual(read.services, ['cache']);
    assert.deepEqual(read.discovered, []);
    assert.equal(read.containers.find((c) => c.name === 'redis')?.service, 'cache');
  });
});

test('the incident page shows its host around the start, the largest items and the agent log as text', async () => {
  await withPage('incident-host', async (page) => {
    await page.goto(`${base}/incidents/${incidentId}`);
    const host = page.getByTestId('incident-hosts').locator('[data-host="web-1"]');
    await host.waitFor();
    for (const chart of ['cpu', 'memory'])
      await host.locator(`[data-chart="${chart}"] canvas`).first().waitFor();
    const start = host.locator('[data-chart="cpu"] .chart-marker[data-kind="moment"]');
    await start.waitFor();
    assert.match(String(await start.getAttribute('title')), /the incident started$/);
    const largest = await host
      .getByTestId('largest-web-1')
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-item')));
    assert.deepEqual(largest, ['shop-api', 'redis', 'backup.service'], 'containers by memory, then units');
    const log = host.getByTestId('agent-log-web-1');
    assert.ok(String(await log.textContent()).includes(hostileLog), 'shown as the agent sent it');
    assert.equal(await log.locator('img').count(), 0, 'never read as HTML');
    assert.match(String(await host.textContent()), /Lines the mon agent on web-1 logged/);
    assert.equal(await page.title(), 'web-1: CPU above 90% · mon');
    // A host's own incident has no service: its silence is a window on the host.
    assert.equal(
      await page.getByRole('link', { name: 'Silence web-1' }).getAttribute('href'),
      '/settings/windows?new=silence&scope=host&name=web-1',
    );
    await page.screenshot({ path: artifactPath('42-incident-host.png'), fullPage: true });
  });
});

test('Remove host asks first naming what goes, shows why it is refused, then removes; a host of mon.toml has no such button', async () => {
  await api('POST', '/hosts', { name: 'old-1' });
  await world.server.deps.store.writer.run((db) => {
    addItemSample(db, 'old-1', 'container', 'worker', T0 - MIN, 5, 2 ** 20);
    statement(
      db,
      `INSERT INTO host_items (host, kind, name, id, state, first_seen, updated_at)
       VALUES ('old-1', 'container', 'worker', 'b000000000000001', 'running', ?, ?)`,
    ).run(T0 - MIN, T0 - MIN);
  });
  const check = await api<Created>('POST', '/checks', {
    name: 'old-home',
    service: 'shop',
    kind: 'http',
    target: world.target.url,
    everyMs: 60_000,
    from: 'old-1',
  });
  await withPage('host-remove', async (page) => {
    await page.goto(`${base}/hosts/old-1`);
    await page.getByRole('button', { name: 'Remove host…' }).waitFor();
    await page.screenshot({ path: artifactPath('45-host-remove.png') });
    await page.getByRole('button', { name: 'Remove host…' }).click();
    await page.getByText('Remove old-1? Its token stops working at once').waitFor();
    assert.match(
      String(await page.locator('.confirm').textContent()),
      /its 1 container, its metrics, host events and agent logs are deleted/,
    );
    await page.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(
      (await api<HostsList>('GET', '/hosts')).hosts.some((h) => h.name === 'old-1'),
      true,
    );

    // A check still runs from it: the refusal names it, and the host stays.
    await page.getByRole('button', { name: 'Remove host…' }).click();
    await page.getByRole('button', { name: 'Remove host', exact: true }).click();
    await page.getByText('checks run from the host "old-1": "old-home" (panel)').waitFor();
    await page.screenshot({ path: artifactPath('46-host-remove-refused.png'), fullPage: true });

    await api('DELETE', `/checks/${check.id}`);
    await page.getByRole('button', { name: 'Remove host', exact: true }).click();
    await page.waitForURL(`${base}/hosts`);
    await page.locator('tr[data-host="web-1"]').waitFor();
    assert.equal(await page.locator('tr[data-host="old-1"]').count(), 0);
    assert.equal(
      (await api<HostsList>('GET', '/hosts')).hosts.some((h) => h.name === 'old-1'),
      false,
    );

    // db-1 is named in mon.toml (the thresholds test): it goes by taking it out of the file.
    await page.goto(`${base}/hosts/db-1`);
    await page.getByTestId('thresholds-read').waitFor();
    await page.getByRole('button', { name: 'New token…' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Remove host…' }).count(), 0);
  });
});
