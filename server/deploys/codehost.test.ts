import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryLog } from '../testing.ts';
import { deployServer, hookSecret, signature } from './testkit.ts';

/** `POST /hooks/codehost`: signed GitHub-style deliveries, over real HTTP on loopback. */

const sha = '3f2a9c1e7b5d4a6f8e0c2b1d9a7f5e3c1b0d2e4f';

/** A `deployment_status` delivery as GitHub sends it, trimmed to what mon reads and a little more. */
function deploymentStatus(
  options: {
    state?: string;
    environment?: string;
    transient?: boolean;
    production?: boolean;
    repository?: string;
    sha?: string;
  } = {},
) {
  const environment = options.environment ?? 'production';
  return {
    action: 'created',
    deployment_status: {
      id: 1,
      state: options.state ?? 'success',
      environment,
      description: 'Deployment finished successfully.',
      target_url: 'https://github.com/acme/shop/actions/runs/77',
      log_url: 'https://github.com/acme/shop/actions/runs/77/job/1',
      environment_url: 'https://shop.example.com',
      creator: { login: 'ann', type: 'User' },
    },
    deployment: {
      id: 2,
      sha: options.sha ?? sha,
      ref: 'main',
      task: 'deploy',
      environment,
      description: 'Release 1.4',
      creator: { login: 'github-actions[bot]' },
      ...(options.transient === undefined ? {} : { transient_environment: options.transient }),
      ...(options.production === undefined ? {} : { production_environment: options.production }),
    },
    repository: { full_name: options.repository ?? 'acme/shop', default_branch: 'main' },
    sender: { login: 'ann' },
  };
}

function push(options: { ref?: string; repository?: string; message?: string; deleted?: boolean } = {}) {
  return {
    ref: options.ref ?? 'refs/heads/main',
    before: '0'.repeat(40),
    after: sha,
    deleted: options.deleted ?? false,
    compare: 'https://github.com/acme/shop/compare/000000000000...3f2a9c1e7b5d',
    head_commit: options.deleted
      ? null
      : { id: sha, message: options.message ?? 'Fix the checkout total\n\nRounding was off by a cent.' },
    pusher: { name: 'bob', email: 'bob@example.com' },
    repository: { full_name: options.repository ?? 'acme/shop', default_branch: 'main' },
  };
}

test('signatures: right is taken; missing is 401; wrong, malformed, or for a body altered by one byte is 403; nothing is stored', async (t) => {
  const memory = memoryLog();
  const kit = await deployServer({ log: memory.log });
  t.after(() => kit.server.dispose());
  const body = Buffer.from(JSON.stringify(deploymentStatus()));

  const missing = await kit.deliver('deployment_status', null, { raw: body, secret: null });
  assert.equal(missing.status, 401);
  assert.equal(missing.body.detail, 'X-Hub-Signature-256 is missing');
  assert.equal(
    (await kit.deliver('deployment_status', null, { raw: body, secret: 'not the secret' })).status,
    403,
  );
  const altered = Buffer.from(body);
  altered[altered.indexOf('ann')] = 'A'.charCodeAt(0);
  const forOriginal = signature(body, hookSecret);
  const tampered = await kit.deliver('deployment_status', null, {
    raw: altered,
    headers: { 'x-hub-signature-256': forOriginal },
  });
  assert.equal(tampered.status, 403);
  assert.equal(tampered.body.detail, 'X-Hub-Signature-256 does not match the body and the secret');
  for (const header of [
    forOriginal.slice(7),
    `sha1=${forOriginal.slice(7)}`,
    `${forOriginal.slice(0, -2)}`,
  ]) {
    const res = await kit.deliver('deployment_status', null, {
      raw: body,
      headers: { 'x-hub-signature-256': header },
    });
    assert.equal(res.status, 403, header);
  }
  assert.deepEqual(kit.deploys(), []);
  const refusals = memory.lines().filter((l) => l.security === 'access.refused');
  assert.equal(refusals.length, 5, 'each wrong signature is a security event');
  assert.equal(refusals[0]?.route, '/hooks/codehost');
  assert.ok(!memory.text().includes(hookSecret), 'the secret is never logged');

  const right = await kit.deliver('deployment_status', null, { raw: body });
  assert.equal(right.status, 201);
  assert.deepEqual(
    kit.deploys().map((d) => [d.service, d.version, d.by, d.url, d.description, d.sources, d.ts]),
    [
      [
        'shop',
        sha,
        'ann',
        'https://github.com/acme/shop/actions/runs/77/job/1',
        'Release 1.4',
        ['codehost'],
        kit.clock.now(),
      ],
    ],
  );
  assert.ok(kit.keys.some((k) => k.includes('service:shop') && k.includes('incidents')));
});

test('without [codehost] secret the route is unknown (404), signed or not', async (t) => {
  const kit = await deployServer({ toml: '[[service]]\nname = "shop"\nrepository = "acme/shop"\n' });
  t.after(() => kit.server.dispose());
  const res = await kit.deliver('ping', { zen: 'Keep it logically awesome.' });
  assert.equal(res.status, 404);
  assert.equal(res.body.detail, 'no route POST /hooks/codehost');
  assert.equal((await kit.deliver('ping', {}, { secret: null })).status, 404);
});

test('ping answers 200; previews, unfinished deployments, other branches, unmapped repositories and other events are acknowledged and ignored', async (t) => {
  const kit = await deployServer();
  t.after(() => kit.server.dispose());
  const ping = await kit.deliver('ping', { zen: 'Design for failure.', hook_id: 1 });
  assert.equal(ping.status, 200);
  assert.deepEqual(ping.body, { ok: true });

  const ignored: [string, unknown, RegExp][] = [
    ['deployment_status', deploymentStatus({ environment: 'preview-pr-12', transient: true }), /preview/],
    ['deployment_status', deploymentStatus({ environment: 'staging' }), /"staging" is not production/],
    ['deployment_status', deploymentStatus({ production: false }), /not production/],
    ['deployment_status', deploymentStatus({ state: 'in_progress' }), /in_progress: only success/],
    ['deployment_status', deploymentStatus({ state: 'failure' }), /failure/],
    ['deployment_status', deploymentStatus({ repository: 'acme/blog' }), /acme\/blog belongs to no service/],
    ['push', push({ ref: 'refs/heads/feature/login' }), /only pushes to the default branch main/],
    ['push', push({ ref: 'refs/tags/v1.4.0' }), /not a branch/],
    ['push', push({ deleted: true }), /deleted the branch/],
    ['push', push({ repository: 'acme/blog' }), /add repository = "acme\/blog" to its \[\[service\]\]/],
    ['issues', { action: 'opened' }, /does not use issues events/],
  ];
  for (const [event, payload, reason] of ignored) {
    const res = await kit.deliver(event, payload);
    assert.equal(res.status, 202, `${event} ${reason}`);
    assert.match(String(res.body.ignored), reason);
  }
  assert.deepEqual(kit.deploys(), []);
  assert.deepEqual(kit.changes(), []);
  const services = kit.server.deps.store.read.prepare('SELECT name FROM services ORDER BY name').all();
  assert.deepEqual(
    services.map((s) => s.name),
    ['billing', 'shop'],
    'an unmapped repository never creates a service',
  );

  // A deployment named otherwise that says it is production counts; repository names ignore case.
  const live = await kit.deliver(
    'deployment_status',
    deploymentStatus({ environment: 'live', production: true }),
  );
  assert.equal(live.status, 201);
  const upper = await kit.deliver(
    'deployment_status',
    deploymentStatus({ repository: 'Acme/Shop', sha: 'b'.repeat(40) }),
  );
  assert.equal(upper.status, 201);
  assert.equal(kit.deploys().length, 2);
});

test('a push to the default branch is a push change at its arrival, with who pushed and the compare link', async (t) => {
  const kit = await deployServer();
  t.after(() => kit.server.dispose());
  const res = await kit.deliver('push', push());
  assert.equal(res.status, 201);
  assert.deepEqual(kit.changes(), [
    {
      id: res.body.event_id,
      ts: kit.clock.now(),
      kind: 'push',
      what: 'push to main: Fix the checkout total',
      service: 'shop',
      host: null,
      by: 'bob',
      url: 'https://github.com/acme/shop/compare/000000000000...3f2a9c1e7b5d',
      description: null,
    },
  ]);
  assert.equal(await kit.counter('ingestAccepted', 'change'), 1);

  // GitHub's form content type carries the JSON in `payload`; a long subject is cut to 500 characters.
  const long = push({ message: 'x'.repeat(600) });
  const form = Buffer.from(`payload=${encodeURIComponent(JSON.stringify(long))}`);
  const viaForm = await kit.deliver('push', null, {
    raw: form,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(viaForm.status, 201);
  const what = kit.changes()[1]?.what ?? '';
  assert.equal([...what].length, 500);
  assert.ok(what.startsWith('push to main: xxx') && what.endsWith('…'));

  // Control characters of a subject become spaces: the marker is one line, as the API would have it.
  assert.equal((await kit.deliver('push', push({ message: 'Release\t2\u2028now\nbody' }))).status, 201);
  assert.equal(kit.changes()[2]?.what, 'push to main: Release 2 now');
});

test('a signed delivery that cannot be read is a 400 and stores nothing', async (t) => {
  const kit = await deployServer();
  t.after(() => kit.server.dispose());
  const notJson = await kit.deliver('push', null, { raw: Buffer.from('{"ref": ') });
  assert.equal(notJson.status, 400);
  assert.equal(notJson.body.detail, 'the payload is not valid JSON');
  // 5 MiB of brackets, as JSON or as the form's payload: seconds of JSON.parse, refused before it.
  const n = 2.5 * 1024 * 1024 - 16;
  const deep = `{"a":${'['.repeat(n)}${']'.repeat(n)}}`;
  for (const [type, raw] of [
    ['application/json', deep],
    [
      'application/x-www-form-urlencoded',
      new URLSearchParams({ payload: deep.slice(0, 2 ** 20) }).toString(),
    ],
  ] as const) {
    const res = await kit.deliver('push', null, { raw: Buffer.from(raw), headers: { 'content-type': type } });
    assert.equal(res.status, 400, type);
    assert.equal(res.body.detail, 'the body nests arrays and objects deeper than 32 levels');
  }
  const noEvent = await kit.deliver('push', push(), { headers: { 'x-github-event': '' } });
  assert.equal(noEvent.status, 400);
  assert.equal(noEvent.body.detail, 'X-GitHub-Event is missing');
  const { deployment: _, ...noDeployment } = deploymentStatus();
  const partial = await kit.deliver('deployment_status', noDeployment);
  assert.equal(partial.status, 400);
  assert.equal(partial.body.detail, 'deployment: required');
  assert.deepEqual(kit.deploys(), []);
  assert.deepEqual(kit.changes(), []);
});

test('the merge window spans the API and the webhook: 1 min 59 s merges, 2 min 1 s does not', async (t) => {
  const kit = await deployServer();
  t.after(() => kit.server.dispose());
  const start = kit.clock.now();
  const fromCi = await kit.post('/api/deploys', { service: 'shop', version: sha, by: 'ci' });
  assert.equal(fromCi.status, 201);
  await kit.clock.advance(119_000);
  const fromHook = await kit.deliver('deployment_status', deploymentStatus());
  assert.equal(fromHook.status, 200);
  assert.deepEqual(fromHook.body, { event_id: fromCi.body.event_id, merged: true });

  const later = 'c'.repeat(40);
  const hookFirst = await kit.deliver('deployment_status', deploymentStatus({ sha: later }));
  assert.equal(hookFirst.status, 201);
  await kit.clock.advance(121_000);
  const apiAfter = await kit.post('/api/deploys', { service: 'shop', version: later });
  assert.equal(apiAfter.status, 201);
  assert.notEqual(apiAfter.body.event_id, hookFirst.body.event_id);

  assert.deepEqual(
    kit.deploys().map((d) => [d.version, d.ts - start, d.sources, d.by, d.url !== null]),
    [
      [sha, 0, ['api', 'codehost'], 'ci', true],
      [later, 119_000, ['codehost'], 'ann', true],
      [later, 240_000, ['api'], null, false],
    ],
    'a merge keeps the first report time and its by, adds the source and fills the empty link',
  );
});
