import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { checkKinds } from '../protocol/check.ts';
import { checkOf, contextOf, listen } from './fixtures/context.ts';
import { runners } from './index.ts';

test('every kind except heartbeat has a runner', () => {
  assert.deepEqual(Object.keys(runners).sort(), checkKinds.filter((k) => k !== 'heartbeat').sort());
});

test('runners never throw: an aborted run is an outcome', async () => {
  const controller = new AbortController();
  controller.abort();
  const targets = {
    http: 'http://127.0.0.1:9/',
    tcp: '127.0.0.1:9',
    dns: 'a.test',
    ping: '127.0.0.1',
    domain: 'a.test',
  };
  for (const [kind, run] of Object.entries(runners)) {
    const check = checkOf({
      kind: kind as keyof typeof runners,
      target: targets[kind as keyof typeof targets],
      timeoutMs: 400,
    });
    const out = await run(
      check,
      contextOf({ signal: controller.signal, rdapBootstrapUrl: 'http://127.0.0.1:9/dns.json' }),
    );
    assert.deepEqual(out, { status: 'down', latencyMs: null, detail: 'timed out after 400 ms' }, kind);
  }
});

test('runners fill in references in the target; a missing variable or a bad value is down naming it', async () => {
  const targets = {
    http: `http://127.0.0.1:\${PORT}/status?key=\${KEY}`,
    tcp: `127.0.0.1:\${PORT}`,
    dns: `\${ZONE}.test`,
    ping: `\${BOX}`,
    domain: `\${DOMAIN}`,
  };
  const first = { http: 'PORT', tcp: 'PORT', dns: 'ZONE', ping: 'BOX', domain: 'DOMAIN' };
  const bad = { PORT: 'x y', KEY: 'secret-key', ZONE: '-bad', BOX: '-f', DOMAIN: 'no-dot' };
  const problems = {
    http: `target with \${PORT}, \${KEY} filled in: must be an http:// or https:// URL`,
    tcp: `target with \${PORT} filled in: must be host:port`,
    dns: `target with \${ZONE} filled in: must be a DNS name`,
    ping: `target with \${BOX} filled in: must be a host name or an IP address`,
    domain: `target with \${DOMAIN} filled in: must be a registered domain such as example.com`,
  };
  for (const [kind, run] of Object.entries(runners)) {
    const k = kind as keyof typeof runners;
    const check = checkOf({ kind: k, target: targets[k] });
    assert.deepEqual(
      await run(check, contextOf()),
      {
        status: 'down',
        latencyMs: null,
        detail: `environment variable ${first[k]} is not set (used in the target)`,
      },
      kind,
    );
    assert.deepEqual(
      await run(check, contextOf({ env: bad })),
      { status: 'down', latencyMs: null, detail: problems[k] },
      kind,
    );
  }

  const seen: string[] = [];
  const web = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    res.end('ok');
  });
  const port = String(await listen(web));
  try {
    const env = { PORT: port, KEY: 'secret-key' };
    const up = await runners.http(checkOf({ kind: 'http', target: targets.http }), contextOf({ env }));
    assert.equal(up.status, 'up');
    assert.deepEqual(seen, ['/status?key=secret-key']);
    const tcp = await runners.tcp(checkOf({ kind: 'tcp', target: targets.tcp }), contextOf({ env }));
    assert.equal(tcp.status, 'up');
  } finally {
    web.closeAllConnections();
    web.close();
  }
});

test('a check of the panel or the API uses only the variables listed for it, at every run', async () => {
  const seen: string[] = [];
  const web = http.createServer((req, res) => {
    seen.push(`${req.url} ${req.headers.authorization ?? ''}`);
    res.end('ok');
  });
  const port = String(await listen(web));
  try {
    const env = { PORT: port, KEY: 'secret-key', TOKEN: 'secret-token' };
    const allowedEnv = ['PORT'];
    const targets = {
      http: `http://127.0.0.1:\${PORT}/?key=\${KEY}`,
      tcp: `127.0.0.1:\${KEY}`,
      dns: `\${KEY}.test`,
      ping: `\${KEY}`,
      domain: `\${KEY}.com`,
    };
    for (const [kind, run] of Object.entries(runners)) {
      const k = kind as keyof typeof runners;
      assert.deepEqual(
        await run(checkOf({ kind: k, target: targets[k] }), contextOf({ env, allowedEnv })),
        {
          status: 'down',
          latencyMs: null,
          detail:
            'environment variable KEY is not listed in [checks] api_env of mon.toml (used in the target)',
        },
        kind,
      );
    }
    const headers = { authorization: `Bearer \${TOKEN}` };
    const target = `http://127.0.0.1:\${PORT}/`;
    const refused = await runners.http(
      checkOf({ kind: 'http', target, headers }),
      contextOf({ env, allowedEnv }),
    );
    assert.equal(
      refused.detail,
      'environment variable TOKEN is not listed in [checks] api_env of mon.toml (used in header authorization)',
    );
    assert.deepEqual(seen, [], 'nothing was sent');
    const listed = await runners.http(
      checkOf({ kind: 'http', target, headers }),
      contextOf({ env, allowedEnv: ['PORT', 'TOKEN'] }),
    );
    assert.equal(listed.status, 'up');
    assert.deepEqual(seen, ['/ Bearer secret-token']);
  } finally {
    web.closeAllConnections();
    web.close();
  }
});
