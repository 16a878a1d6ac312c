// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are literal ${NAME} references
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ConfigExport } from '../../protocol/config.ts';
import { exportConfig } from '../config/export.ts';
import { loadConfigText } from '../config/load.ts';
import { startReceiver } from '../http/fixtures/receiver.ts';
import { beforeNextJob, tempDir } from '../testing.ts';
import { quietSpell, T0, watchdogServer } from './testkit.ts';

/** `[watchdog]` of mon.toml: its keys, its export, and the targets it sets, which the API cannot change. */

function errorOf(text: string): string {
  const result = loadConfigText(text, { env: {} });
  assert.equal(result.ok, false, 'expected the file to be rejected');
  return result.ok ? '' : result.error;
}

test('the keys of [watchdog] are checked like the API bodies', () => {
  assert.match(errorOf('[watchdog]\nevery = "5s"\n'), /^watchdog\.every: must be at least 10s$/m);
  assert.match(errorOf('[watchdog]\nevery = "2d"\n'), /^watchdog\.every: must be at most 1d$/m);
  assert.match(
    errorOf('[watchdog.heartbeat]\nurl = "http://hc.example.com/ping/1"\n'),
    /^watchdog\.heartbeat\.url: must be https:\/\/ \(plain http:\/\/ only with allow_private, for a box on your own network\)$/m,
  );
  assert.match(
    errorOf('[watchdog.edge]\nurl = "https://10.0.0.5/in"\ntoken = "t-1"\n'),
    /^watchdog\.edge\.url: 10\.0\.0\.5 is a private address: set allow_private to reach it$/m,
  );
  assert.match(
    errorOf('[watchdog.edge]\nurl = "https://edge.example.com/in"\n'),
    /^watchdog\.edge\.token: required$/m,
  );
  assert.match(
    errorOf('[watchdog.heartbeat]\nurl = "https://hc.example.com/p"\ntoken = "x"\n'),
    /^watchdog\.heartbeat\.token: unknown key$/m,
  );

  const loaded = loadConfigText(
    '[watchdog.edge]\nurl = "http://10.0.0.5/in"\ntoken = "t-1"\nallow_private = true\n',
    { env: {} },
  );
  assert.ok(loaded.ok);
  assert.deepEqual(loaded.config.watchdog, {
    everyMs: 60_000,
    edge: { url: 'http://10.0.0.5/in', token: 't-1', allowPrivate: true },
    heartbeat: null,
  });
});

test('the export writes the edge token and the heartbeat URL as references, and loads back', () => {
  const text = [
    '[watchdog]',
    'every = "2m"',
    '[watchdog.edge]',
    'url = "https://edge.example.com/in"',
    'token = "literal-edge-token"',
    '[watchdog.heartbeat]',
    'url = "https://hc.example.com/ping/literal-uuid"',
  ].join('\n');
  const loaded = loadConfigText(text, { env: {} });
  if (!loaded.ok) assert.fail(loaded.error);
  const exported = exportConfig(loaded.config, loaded.references, []);
  assert.ok(!exported.toml.includes('literal-edge-token'));
  assert.ok(!exported.toml.includes('literal-uuid'));
  assert.match(exported.toml, /\[watchdog\]\nevery = "2m"/);
  assert.match(exported.toml, /token = "\$\{MON_WATCHDOG_EDGE_TOKEN\}"/);
  assert.match(exported.toml, /url = "\$\{MON_WATCHDOG_HEARTBEAT_URL\}"/);
  assert.deepEqual(
    exported.secrets.map((s) => [s.name, s.key]),
    [
      ['MON_WATCHDOG_EDGE_TOKEN', 'watchdog.edge.token'],
      ['MON_WATCHDOG_HEARTBEAT_URL', 'watchdog.heartbeat.url'],
    ],
  );
  const env = {
    MON_WATCHDOG_EDGE_TOKEN: 'literal-edge-token',
    MON_WATCHDOG_HEARTBEAT_URL: 'https://hc.example.com/ping/literal-uuid',
  };
  const again = loadConfigText(exported.toml, { env });
  if (!again.ok) assert.fail(again.error);
  assert.deepEqual(again.config.watchdog, loaded.config.watchdog);

  // A URL whose secret part is a reference keeps it.
  const partly = loadConfigText('[watchdog.heartbeat]\nurl = "https://hc.example.com/ping/${HC_ID}"\n', {
    env: { HC_ID: 'uuid-from-env' },
  });
  if (!partly.ok) assert.fail(partly.error);
  const out = exportConfig(partly.config, partly.references, []);
  assert.match(out.toml, /url = "https:\/\/hc\.example\.com\/ping\/\$\{HC_ID\}"/);
  assert.deepEqual(
    out.secrets.map((s) => s.name),
    ['HC_ID'],
  );
});

test('targets of mon.toml are sent to from the start, read as managed, and PUT and DELETE answer 409', async (t) => {
  const receiver = await startReceiver();
  const { dir, remove } = tempDir();
  const configPath = join(dir, 'mon.toml');
  writeFileSync(
    configPath,
    [
      '[watchdog]',
      'every = "30s"',
      '[watchdog.edge]',
      `url = "${receiver.url}/edge"`,
      'token = "${EDGE_TOKEN}"',
      'allow_private = true',
      '[watchdog.heartbeat]',
      `url = "${receiver.url}/ping/\${PING_ID}"`,
      'allow_private = true',
    ].join('\n'),
  );
  const env = { EDGE_TOKEN: 'edge-token-from-env', PING_ID: 'ping-id-from-env' };
  const { server, clock, inject, readUntil } = await watchdogServer({ configPath, env });
  t.after(async () => {
    await server.dispose();
    await receiver.close();
    remove();
  });

  await receiver.arrived(2);
  const byPath = new Map(receiver.received.map((r) => [r.url, r]));
  assert.equal(byPath.get('/edge')?.headers.authorization, 'Bearer edge-token-from-env');
  assert.equal(byPath.get('/ping/ping-id-from-env')?.method, 'GET');
  const read = await readUntil(
    'both sent',
    (r) => r.edge?.lastSentAt === T0 && r.heartbeat?.lastSentAt === T0,
  );
  assert.deepEqual(read, {
    edge: {
      address: `${receiver.url}/edge`,
      managed: true,
      allowPrivate: true,
      lastSentAt: T0,
      lastError: null,
      lastErrorAt: null,
    },
    heartbeat: {
      address: receiver.host,
      managed: true,
      allowPrivate: true,
      lastSentAt: T0,
      lastError: null,
      lastErrorAt: null,
    },
    everyMs: 30_000,
  });

  const body = { url: `${receiver.url}/other`, token: 'api-token', allowPrivate: true };
  for (const [method, path, detail] of [
    ['PUT', '/watchdog/edge', 'set by [watchdog.edge] of mon.toml: change it there'],
    ['DELETE', '/watchdog/edge', 'set by [watchdog.edge] of mon.toml: change it there'],
    ['PUT', '/watchdog/heartbeat-url', 'set by [watchdog.heartbeat] of mon.toml: change it there'],
    ['DELETE', '/watchdog/heartbeat-url', 'set by [watchdog.heartbeat] of mon.toml: change it there'],
  ] as const) {
    const payload = path.endsWith('edge') ? body : { url: body.url, allowPrivate: true };
    const res = await inject(method, path, method === 'PUT' ? payload : undefined);
    assert.equal(res.status, 409, `${method} ${path}`);
    assert.equal(res.json().detail, detail);
  }

  // The file's interval.
  await clock.advance(30_000);
  await receiver.arrived(4);
  assert.ok(!receiver.received.some((r) => r.url === '/other'));

  // The export names the variables, never their values.
  const exported = (await inject('GET', '/config/export')).json() as unknown as ConfigExport;
  assert.match(exported.toml, /token = "\$\{EDGE_TOKEN\}"/);
  assert.match(exported.toml, /\/ping\/\$\{PING_ID\}"/);
  assert.ok(!JSON.stringify(exported).includes('from-env'));
});

test('a reload follows the file: its target replaces the one set by the API, and stops when it is removed', async (t) => {
  const receiver = await startReceiver();
  const { dir, remove } = tempDir();
  const configPath = join(dir, 'mon.toml');
  writeFileSync(configPath, '');
  const { server, clock, inject, read, readUntil } = await watchdogServer({ configPath });
  t.after(async () => {
    await server.dispose();
    await receiver.close();
    remove();
  });
  const edgeTable = (path: string, token: string) =>
    `[watchdog.edge]\nurl = "${receiver.url}${path}"\ntoken = "${token}"\nallow_private = true\n`;

  await inject('PUT', '/watchdog/edge', {
    url: `${receiver.url}/api-edge`,
    token: 'api-token',
    allowPrivate: true,
  });
  await receiver.arrived(1);
  receiver.answer = () => ({ status: 500 });
  await clock.advance(60_000);
  await readUntil('the API target failing', (r) => r.edge?.lastError !== null);

  // The file takes the edge over: sent at once, a new state.
  receiver.answer = () => ({ status: 200 });
  writeFileSync(configPath, edgeTable('/file-edge', 'file-token-1'));
  server.deps.config.reload();
  await receiver.arrived(3);
  assert.equal(receiver.received[2]!.url, '/file-edge');
  assert.equal(receiver.received[2]!.headers.authorization, 'Bearer file-token-1');
  let shown = await readUntil(
    'the file target sent',
    (r) => r.edge?.managed === true && r.edge.lastSentAt !== null,
  );
  assert.equal(shown.edge?.address, `${receiver.url}/file-edge`);
  assert.equal(shown.edge?.lastError, null);

  // A new token in the file: sent at once with it. The same file again: nothing new.
  writeFileSync(configPath, edgeTable('/file-edge', 'file-token-2'));
  server.deps.config.reload();
  await receiver.arrived(4);
  assert.equal(receiver.received[3]!.headers.authorization, 'Bearer file-token-2');
  writeFileSync(configPath, `# unchanged\n${edgeTable('/file-edge', 'file-token-2')}`);
  server.deps.config.reload();
  await quietSpell();
  assert.equal(receiver.received.length, 4);

  // Out of the file: the edge is gone (the API's was replaced), nothing more is sent.
  writeFileSync(configPath, '');
  server.deps.config.reload();
  shown = await readUntil('the edge gone', (r) => r.edge === null);
  await clock.advance(5 * 60_000);
  await quietSpell();
  assert.equal(receiver.received.length, 4);
  assert.equal(
    (
      await inject('PUT', '/watchdog/edge', {
        url: `${receiver.url}/api-edge`,
        token: null,
        allowPrivate: true,
      })
    ).status,
    422,
    'the API token went with the target the file replaced',
  );
  assert.equal((await read()).edge, null);
});

test('a reload that changes [watchdog] every times the next requests by the new interval at once', async (t) => {
  const ping = await startReceiver();
  const { dir, remove } = tempDir();
  const configPath = join(dir, 'mon.toml');
  writeFileSync(configPath, '[watchdog]\nevery = "1d"\n');
  const { server, clock, inject } = await watchdogServer({ configPath });
  t.after(async () => {
    await server.dispose();
    await ping.close();
    remove();
  });
  await inject('PUT', '/watchdog/heartbeat-url', { url: `${ping.url}/ping/every`, allowPrivate: true });
  await ping.arrived(1);

  // Lowered from a day to a minute: the next is due a minute after the last, not a day.
  await clock.advance(30_000);
  writeFileSync(configPath, '[watchdog]\nevery = "1m"\n');
  server.deps.config.reload();
  await clock.advance(29_000);
  await quietSpell();
  assert.equal(ping.received.length, 1, 'not before the minute is up');
  await clock.advance(1000);
  await ping.arrived(2);
  await clock.advance(60_000);
  await ping.arrived(3);

  // Lowered below the time since the last: due at once.
  await clock.advance(30_000);
  writeFileSync(configPath, '[watchdog]\nevery = "20s"\n');
  server.deps.config.reload();
  await clock.advance(0);
  await ping.arrived(4);
  assert.equal(clock.now(), T0 + 150_000);
  await clock.advance(20_000);
  await ping.arrived(5);
});

test('a target mon.toml sets while a PUT or DELETE waits for the writer: 409, the API changes nothing', async (t) => {
  const receiver = await startReceiver();
  const { dir, remove } = tempDir();
  const configPath = join(dir, 'mon.toml');
  writeFileSync(configPath, '');
  const { server, inject, read } = await watchdogServer({ configPath });
  t.after(async () => {
    await server.dispose();
    await receiver.close();
    remove();
  });
  await inject('PUT', '/watchdog/heartbeat-url', { url: `${receiver.url}/ping/api`, allowPrivate: true });
  await receiver.arrived(1);

  // The file sets the target after the request's arrival, before its writer job.
  const reloadBeforeNextJob = (text: string) =>
    beforeNextJob(server.deps.store.writer, () => {
      writeFileSync(configPath, text);
      server.deps.config.reload();
    });
  const edge = `[watchdog.edge]\nurl = "${receiver.url}/file-edge"\ntoken = "file-token"\nallow_private = true\n`;
  reloadBeforeNextJob(edge);
  const put = await inject('PUT', '/watchdog/edge', {
    url: `${receiver.url}/api-edge`,
    token: 'api-token',
    allowPrivate: true,
  });
  assert.equal(put.status, 409, put.text);
  assert.equal(put.json().detail, 'set by [watchdog.edge] of mon.toml: change it there');

  const heartbeat = `[watchdog.heartbeat]\nurl = "${receiver.url}/ping/file"\nallow_private = true\n`;
  reloadBeforeNextJob(`${edge}${heartbeat}`);
  const removed = await inject('DELETE', '/watchdog/heartbeat-url');
  assert.equal(removed.status, 409, removed.text);
  const shown = await read();
  assert.equal(shown.edge?.address, `${receiver.url}/file-edge`);
  assert.equal(shown.edge?.managed, true);
  assert.equal(shown.heartbeat?.managed, true);
  assert.ok(!receiver.received.some((r) => r.path === '/api-edge'), 'nothing went to the API target');
});
