import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SiteCreated } from '../../protocol/analytics.ts';
import type { LiveKey } from '../../protocol/live.ts';
import type { ServiceRead, ServicesList } from '../../protocol/reads.ts';
import { type Any, checkServer, liveConfig } from '../checks/testkit.ts';
import { fileService } from '../incidents/testkit.ts';
import { all, mapper, text } from '../store/rows.ts';
import { createTestServer, type TestServer, tempDir } from '../testing.ts';

/** mon.toml has the service `files` with the site files.example, and the public URL https://mon.example. */
async function sitesServer() {
  const config = liveConfig({
    services: [{ ...fileService('files'), sites: ['files.example'] }],
    server: { url: 'https://mon.example', trustedProxies: [] },
  });
  const kit = await checkServer({ config: config.service });
  return { ...kit, config };
}

const siteRow = mapper({ domain: text, service: text });
const storedSites = (server: TestServer) =>
  all(server.deps.store.read, 'SELECT domain, service FROM sites ORDER BY domain', siteRow);
const serviceNames = async (inject: Awaited<ReturnType<typeof checkServer>>['inject']) =>
  ((await inject('GET', '/api/v1/services')).body as ServicesList).services.map((s) => s.name);

/** Counts the writer jobs `server` is handed from now on. */
function countJobs(server: TestServer): { count: () => number } {
  const { writer } = server.deps.store;
  const run = writer.run.bind(writer);
  let jobs = 0;
  writer.run = (fn) => {
    jobs++;
    return run(fn);
  };
  return { count: () => jobs };
}

test('a site with a check: the service, the check and the site in one writer job, answered with the snippet', async (t) => {
  const { server, inject, engine, script } = await sitesServer();
  t.after(() => server.dispose());
  const published: LiveKey[] = [];
  server.deps.bus.subscribe((keys) => published.push(...keys));
  // The check's first run waits, so that its result's job does not count.
  let release = () => {};
  script.gate = new Promise((resolve) => {
    release = resolve;
  });
  const jobs = countJobs(server);
  const check = { name: 'shop-home', service: 'shop', kind: 'http', target: 'https://shop.example/' };
  const res = await inject('POST', '/api/v1/sites', { domain: ' Shop.Example ', service: 'shop', check });
  assert.equal(res.status, 201, res.text);
  assert.equal(jobs.count(), 1);
  const answer = res.body as SiteCreated;
  assert.deepEqual(Object.keys(answer), ['domain', 'service', 'check', 'snippet']);
  assert.equal(answer.domain, 'shop.example', 'trimmed and lowercase, as in mon.toml');
  assert.equal(answer.service, 'shop');
  assert.match(answer.check ?? '', /^[0-9a-f]{16}$/);
  assert.equal(
    answer.snippet,
    '<script defer src="https://mon.example/b.js" data-domain="shop.example"></script>',
  );
  // POST /e knows the site as soon as the answer is out.
  assert.deepEqual(server.analytics.sites.find('shop.example'), {
    domain: 'shop.example',
    service: 'shop',
    fromFile: false,
  });
  assert.deepEqual(storedSites(server), [{ domain: 'shop.example', service: 'shop' }]);
  assert.equal(engine.get(answer.check!)?.rec.service, 'shop');
  assert.ok(published.includes('service:shop') && published.includes('overview'), published.join());
  const definition = await inject('GET', `/api/v1/checks/${answer.check}`);
  assert.deepEqual((definition.body as Any).input, check);
  release();
  await engine.flush();
  assert.equal(script.runs, 1, 'the check runs at once');
});

test('without a service, the site gets one named after its domain; it outlives its checks', async (t) => {
  const { server, inject } = await sitesServer();
  t.after(() => server.dispose());
  const res = await inject('POST', '/api/v1/sites', { domain: 'blog.example.com' });
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(
    { ...(res.body as SiteCreated), snippet: undefined },
    { domain: 'blog.example.com', service: 'blog-example-com', check: null, snippet: undefined },
  );
  assert.deepEqual(await serviceNames(inject), ['blog-example-com', 'files']);
  // null selects the default as an absent key does.
  const nulls = await inject('POST', '/api/v1/sites', {
    domain: 'docs.example.com',
    service: null,
    check: null,
  });
  assert.equal(nulls.status, 201, nulls.text);
  assert.equal((nulls.body as SiteCreated).service, 'docs-example-com');
  // A check of the service comes and goes: the site keeps its service.
  const check = {
    name: 'blog-home',
    service: 'blog-example-com',
    kind: 'http',
    target: 'https://b.example/',
  };
  const made = await inject('POST', '/api/v1/checks', check);
  assert.equal(made.status, 201, made.text);
  assert.equal((await inject('DELETE', `/api/v1/checks/${(made.body as Any).id}`)).status, 204);
  assert.deepEqual(await serviceNames(inject), ['blog-example-com', 'docs-example-com', 'files']);
});

test('a refused site leaves no service, no check and no site behind', async (t) => {
  const { server, inject, engine } = await sitesServer();
  t.after(() => server.dispose());
  assert.equal(
    (await inject('POST', '/api/v1/sites', { domain: 'known.example', service: 'known' })).status,
    201,
  );
  const taken = { name: 'taken', service: 'known', kind: 'http', target: 'http://127.0.0.1:9/' };
  assert.equal((await inject('POST', '/api/v1/checks', taken)).status, 201);
  const check = { name: 'shop-home', service: 'shop', kind: 'http', target: 'http://127.0.0.1:9/' };
  const cases: [unknown, number, RegExp][] = [
    // Known domains: in mon.toml, or added before (in any case).
    [
      { domain: 'files.example', service: 'shop' },
      409,
      /files\.example belongs to the service "files" in mon\.toml/,
    ],
    [{ domain: 'KNOWN.example', service: 'shop' }, 409, /the site known\.example exists/],
    // The file's services, and names held by checks.
    [
      { domain: 'shop.example', service: 'files' },
      409,
      /"files" is defined in mon\.toml; list the site in its sites/,
    ],
    [{ domain: 'shop.example', service: 'taken' }, 409, /a check named "taken" exists/],
    [{ domain: 'taken' }, 409, /a check named "taken" exists/],
    // Refused inside the writer job, after the service would have been made.
    [
      { domain: 'shop.example', service: 'shop', check: { ...check, name: 'taken' } },
      409,
      /a check named "taken" exists/,
    ],
    [
      { domain: 'shop.example', service: 'shop', check: { ...check, from: 'web-9' } },
      422,
      /^check\.from: no host named "web-9"/,
    ],
    // The check's own values, named as fields of `check`.
    [
      { domain: 'shop.example', service: 'shop', check: { ...check, service: 'other' } },
      422,
      /^check\.service: must be the site's service \("shop"\)/,
    ],
    [
      { domain: 'shop.example', check: check },
      422,
      /^check\.service: must be the site's service \("shop-example"\)/,
    ],
    [
      { domain: 'shop.example', service: 'shop', check: { ...check, everyMs: 5000 } },
      422,
      /^check\.everyMs: /,
    ],
    [
      { domain: 'shop.example', service: 'shop', check: { ...check, command: 'true' } },
      422,
      /^check\.command: /,
    ],
    // The domain: mon.toml's rule for sites.
    [
      { domain: 'https://shop.example', service: 'shop' },
      422,
      /^domain: must be a host name such as example\.com/,
    ],
    [{ domain: 'shop.example:8080', service: 'shop' }, 422, /^domain: must be a host name/],
    [{ domain: 'shop.example/blog', service: 'shop' }, 422, /^domain: must be a host name/],
    [{ domain: 'shop.example.', service: 'shop' }, 422, /^domain: must be a host name/],
    [{ service: 'shop' }, 422, /^domain: required/],
    [{ domain: 'shop.example', service: 'a/b' }, 422, /^service: /],
    [
      { domain: `${'a'.repeat(60)}.${'b'.repeat(60)}.example` },
      422,
      /^service: required for a domain this long/,
    ],
    [{ domain: 'shop.example', service: 'shop', extra: 1 }, 422, /extra/],
  ];
  for (const [body, status, detail] of cases) {
    const res = await inject('POST', '/api/v1/sites', body);
    assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
    assert.match((res.body as Any).detail, detail, JSON.stringify(body));
  }
  assert.deepEqual(await serviceNames(inject), ['files', 'known']);
  assert.deepEqual(storedSites(server), [{ domain: 'known.example', service: 'known' }]);
  assert.deepEqual(
    engine.all().map((e) => e.rec.name),
    ['taken'],
  );
  assert.equal(server.analytics.sites.find('shop.example'), null);
});

test('services show their sites, the file’s and the API’s; a domain in both is the file’s', async (t) => {
  const { server, inject, config } = await sitesServer();
  t.after(() => server.dispose());
  for (const domain of ['www.shop.example', 'shop.example']) {
    assert.equal((await inject('POST', '/api/v1/sites', { domain, service: 'shop' })).status, 201);
  }
  const sitesOf = async () =>
    Object.fromEntries(
      ((await inject('GET', '/api/v1/services')).body as ServicesList).services.map((s) => [s.name, s.sites]),
    );
  assert.deepEqual(await sitesOf(), { files: ['files.example'], shop: ['shop.example', 'www.shop.example'] });
  const shop = (await inject('GET', '/api/v1/services/shop')).body as ServiceRead;
  assert.deepEqual(shop.sites, ['shop.example', 'www.shop.example']);
  assert.deepEqual(((await inject('GET', '/api/v1/services/files')).body as ServiceRead).sites, [
    'files.example',
  ]);

  // mon.toml now lists www.shop.example under files: the file wins, in the reads and for POST /e.
  config.reload({ services: [{ ...fileService('files'), sites: ['files.example', 'www.shop.example'] }] });
  assert.deepEqual(await sitesOf(), {
    files: ['files.example', 'www.shop.example'],
    shop: ['shop.example'],
  });
  assert.deepEqual(server.analytics.sites.find('www.shop.example'), {
    domain: 'www.shop.example',
    service: 'files',
    fromFile: true,
  });
});

test('the configuration export has the file’s sites, not those added through the API', async (t) => {
  const work = tempDir();
  const configPath = join(work.dir, 'mon.toml');
  writeFileSync(configPath, '[[service]]\nname = "files"\nsites = ["files.example"]\n');
  const server = await createTestServer({
    configPath,
    authenticate: async () => ({ kind: 'token', tokenId: 't1', scope: 'write', label: 'test' }),
  });
  t.after(async () => {
    await server.dispose();
    work.remove();
  });
  const check = { name: 'blog-home', service: 'blog-example', kind: 'http', target: 'https://blog.example/' };
  const added = await server.app.inject({
    method: 'POST',
    url: '/api/v1/sites',
    payload: { domain: 'blog.example', check },
  });
  assert.equal(added.statusCode, 201, added.body);
  const { toml } = (await server.app.inject({ method: 'GET', url: '/api/v1/config/export' })).json() as Any;
  assert.match(toml, /sites = \[ "files\.example" \]/);
  assert.match(toml, /name = "blog-home"/, 'the panel check is exported');
  assert.doesNotMatch(toml, /"blog\.example"/);
});
