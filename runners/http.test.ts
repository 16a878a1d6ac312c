import assert from 'node:assert/strict';
import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { makePki, type TestPki } from './fixtures/certs.ts';
import { checkOf, closedPort, contextOf, listen } from './fixtures/context.ts';
import { httpRunner } from './http.ts';

const DAY = 86_400_000;
/** Text a peer holds that no detail may quote. */
const secret = 'peer-secret-4b1d';

function routes(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://x');
  const hop = /^\/hop\/(\d+)$/.exec(url.pathname);
  if (hop) {
    const n = Number(hop[1]);
    if (n === 0) return res.end('arrived');
    res.writeHead(302, { location: `/hop/${n - 1}` });
    return res.end();
  }
  switch (url.pathname) {
    case '/ok':
      return res.end('hello ok');
    case '/json':
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ status: 'ok', items: [{ id: 1 }], ready: false }));
    case '/fail':
      res.statusCode = 503;
      return res.end('maintenance');
    case '/to':
      res.writeHead(302, { location: url.searchParams.get('url') ?? '/' });
      return res.end();
    case '/moved':
      res.writeHead(302, { location: '/ok' });
      return res.end();
    case '/internal':
      // A peer's own words where a detail could pick them up: reason phrase and document.
      res.writeHead(500, `Broken ${secret}`, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ status: `down: ${secret}`, db: { password: secret } }));
    case '/bad-location':
      res.writeHead(302, { location: `http://[${secret}/` });
      return res.end();
    case '/odd-scheme':
      res.writeHead(302, { location: `${secret}:elsewhere` });
      return res.end();
    case '/echo':
      return res.end(JSON.stringify({ method: req.method, headers: req.headers }));
    case '/slow':
      return; // never answers
    case '/stall':
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial'); // and never the rest
      return;
    case '/delay':
      setTimeout(() => res.end('late'), 150);
      return;
    case '/big':
      res.write('a'.repeat(1024 * 1024));
      return res.end('MARKER');
    default:
      res.statusCode = 404;
      return res.end('not found');
  }
}

describe('http runner', () => {
  const server = http.createServer(routes);
  let base = '';
  before(async () => {
    base = `http://127.0.0.1:${await listen(server)}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const run = (path: string, body: Parameters<typeof checkOf>[0] | object = {}, ctx = contextOf()) =>
    httpRunner(checkOf({ kind: 'http', target: `${base}${path}`, ...body }), ctx);

  test('2xx is up, with the status line and latency', async () => {
    const out = await run('/ok');
    assert.equal(out.status, 'up');
    assert.equal(out.detail, '200 OK');
    assert.equal(typeof out.latencyMs, 'number');
    assert.equal(out.expiry, undefined, 'plain http observes no certificate');
  });

  test('non-2xx is down by default', async () => {
    const out = await run('/fail');
    assert.equal(out.status, 'down');
    assert.equal(out.detail, '503 Service Unavailable');
  });

  test('GET follows up to 5 redirects; a 6th is down', async () => {
    assert.equal((await run('/hop/5', { expect: [{ bodyContains: 'arrived' }] })).status, 'up');
    const out = await run('/hop/6');
    assert.equal(out.status, 'down');
    assert.match(out.detail, /too many redirects/);
    assert.equal((await run('/hop/3', { method: 'HEAD' })).status, 'up');
  });

  test('POST does not follow redirects; a 3xx assertion accepts them', async () => {
    const out = await run('/moved', { method: 'POST' });
    assert.equal(out.status, 'down');
    assert.match(out.detail, /^302 Found; redirects are followed only for GET and HEAD/);
    const accepted = await run('/moved', { method: 'POST', expect: [{ status: '3xx' }] });
    assert.deepEqual([accepted.status, accepted.detail], ['up', '302 Found']);
    const echoed = await run('/echo', { method: 'POST', expect: [{ json: '$.method', equals: 'POST' }] });
    assert.equal(echoed.status, 'up', echoed.detail);
  });

  test('a status assertion replaces the 2xx rule', async () => {
    assert.equal((await run('/fail', { expect: [{ status: 503 }] })).status, 'up');
    const out = await run('/ok', { expect: [{ status: '5xx' }] });
    assert.deepEqual([out.status, out.detail], ['down', '200 OK; status 200, expected 5xx']);
  });

  test('body and JSON assertions', async () => {
    assert.equal((await run('/ok', { expect: [{ bodyContains: 'hello' }] })).status, 'up');
    assert.equal((await run('/ok', { expect: [{ bodyContains: 'bye' }] })).status, 'down');
    assert.equal(
      (await run('/fail', { expect: [{ status: 503 }, { bodyNotContains: 'maint' }] })).status,
      'down',
    );
    assert.equal((await run('/ok', { expect: [{ bodyNotContains: 'error' }] })).status, 'up');
    const json = await run('/json', {
      expect: [{ json: '$.status', equals: 'ok' }, { json: 'items[0].id', equals: 1 }, { json: '$.items' }],
    });
    assert.equal(json.status, 'up', json.detail);
    const wrong = await run('/json', { expect: [{ json: '$.ready' }] });
    assert.deepEqual(
      [wrong.status, wrong.detail],
      ['down', '200 OK; expected $.ready to be a true value, got false'],
    );
  });

  test('only the first 1 MiB of the body is read', async () => {
    const out = await run('/big', { expect: [{ bodyContains: 'MARKER' }] });
    assert.equal(out.status, 'down');
    assert.equal((await run('/big', { expect: [{ bodyContains: 'aaaa' }] })).status, 'up');
  });

  test('a failing degraded assertion degrades; any other failure takes it down', async () => {
    const slow = { responseTimeBelowMs: 50, degraded: true };
    const degraded = await run('/delay', { expect: [slow] });
    assert.equal(degraded.status, 'degraded');
    assert.match(degraded.detail, /^200 OK; took \d+ ms, expected below 50 ms$/);
    assert.ok(degraded.latencyMs! >= 140, `latency ${degraded.latencyMs}`);
    const downed = await run('/delay', { expect: [slow, { bodyContains: 'early' }] });
    assert.equal(downed.status, 'down');
    assert.equal((await run('/delay', { expect: [{ responseTimeBelowMs: 50 }] })).status, 'down');
    assert.equal((await run('/ok', { expect: [{ responseTimeBelowMs: 5000 }] })).status, 'up');
  });

  test('header values expand environment references; a missing variable is named', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${NAME} reference
    const headers = { authorization: 'Bearer ${API_TOKEN}', 'x-plain': 'as is' };
    const ctx = contextOf({ env: { API_TOKEN: 's3cret' } });
    const out = await run(
      '/echo',
      {
        headers,
        expect: [
          { json: '$.headers.authorization', equals: 'Bearer s3cret' },
          { json: '$.headers.x-plain', equals: 'as is' },
        ],
      },
      ctx,
    );
    assert.equal(out.status, 'up', out.detail);
    const missing = await run('/echo', { headers }, contextOf());
    assert.equal(missing.status, 'down');
    assert.match(missing.detail, /API_TOKEN is not set/);
    assert.doesNotMatch(missing.detail, /s3cret/);
  });

  test('configured headers are not sent to another origin after a redirect', async () => {
    const other = http.createServer(routes);
    const port = await listen(other);
    try {
      const target = encodeURIComponent(`http://127.0.0.1:${port}/echo`);
      const out = await run(`/to?url=${target}`, {
        headers: { authorization: 'Bearer x' },
        expect: [{ bodyNotContains: 'authorization' }, { bodyContains: 'mon-check' }],
      });
      assert.equal(out.status, 'up', out.detail);
    } finally {
      other.close();
    }
  });

  test('details never quote what the peer sent: reason phrase, redirect locations, JSON values', async () => {
    const out = await run('/internal', {
      expect: [{ status: 200 }, { json: '$.status', equals: 'up' }, { json: '$.db.password', equals: 'x' }],
    });
    assert.deepEqual(
      [out.status, out.detail],
      [
        'down',
        '500 Internal Server Error; status 500, expected 200; expected $.status to equal "up", got a different string; expected $.db.password to equal "x", got a different string',
      ],
    );
    const invalid = await run('/bad-location');
    assert.deepEqual([invalid.status, invalid.detail], ['down', 'redirect to an invalid URL']);
    const scheme = await run('/odd-scheme');
    assert.deepEqual(
      [scheme.status, scheme.detail],
      ['down', 'redirect to a URL that is not http:// or https://'],
    );
  });

  test('header values filled in at run time are checked like written ones; the value is not shown', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${NAME} reference
    const headers = { authorization: 'Bearer ${API_TOKEN}' };
    const out = await run(
      '/echo',
      { headers },
      contextOf({ env: { API_TOKEN: `x\r\nX-Injected: ${secret}` } }),
    );
    assert.deepEqual(
      [out.status, out.detail],
      [
        'down',
        `header authorization with \${API_TOKEN} filled in: must not contain line breaks or other control characters`,
      ],
    );
  });

  test('a server that does not answer times out', async () => {
    const out = await run('/slow', { timeoutMs: 200 });
    assert.deepEqual([out.status, out.detail, out.latencyMs], ['down', 'timed out after 200 ms', null]);
    const controller = new AbortController();
    const pending = run('/slow', { timeoutMs: 5000 }, contextOf({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    assert.equal((await pending).detail, 'timed out after 5000 ms');
  });

  test('a body that stalls is given up after the run: its connection is closed', async () => {
    // A server of its own, so that no kept-alive connection of another test is counted.
    const stalling = http.createServer(routes);
    let open = 0;
    stalling.on('connection', (socket) => {
      open++;
      socket.once('close', () => open--);
    });
    const target = `http://127.0.0.1:${await listen(stalling)}/stall`;
    // A long timeout: the connection must close because of the stall, not because the run timed out.
    const out = await httpRunner(checkOf({ kind: 'http', target, timeoutMs: 30_000 }), contextOf());
    assert.equal(out.status, 'up', out.detail);
    assert.equal(open, 1);
    for (let i = 0; i < 60 && open > 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(open, 0, 'the stalled connection was closed');
    stalling.close();
  });

  test('an https URL on a plain HTTP port is one clear line', async () => {
    const out = await run('/ok', {}, contextOf());
    assert.equal(out.status, 'up');
    const tls = await httpRunner(
      checkOf({ kind: 'http', target: base.replace('http:', 'https:') }),
      contextOf(),
    );
    assert.equal(tls.status, 'down');
    assert.equal(tls.detail, 'TLS handshake failed (does this port speak HTTPS?)');
  });

  test('a closed port is down', async () => {
    const port = await closedPort();
    const out = await httpRunner(checkOf({ kind: 'http', target: `http://127.0.0.1:${port}/` }), contextOf());
    assert.deepEqual([out.status, out.detail], ['down', 'connection refused']);
  });
});

describe('https runner', () => {
  let pki: TestPki;
  const servers: https.Server[] = [];
  const serve = async (pair: { key: string; cert: string }) => {
    const server = https.createServer(pair, routes);
    servers.push(server);
    return `https://127.0.0.1:${await listen(server)}`;
  };
  let good = '';
  let soon = '';
  let self = '';
  before(async () => {
    pki = makePki();
    good = await serve(pki.leaf(90));
    soon = await serve(pki.leaf(5));
    self = await serve(pki.selfSigned());
  });
  after(() => {
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
    pki.dispose();
  });
  const run = (target: string, extraCa?: string[]) =>
    httpRunner(checkOf({ kind: 'http', target }), contextOf(extraCa ? { extraCa } : {}));

  test('a trusted certificate is up and its expiry observed', async () => {
    const out = await run(`${good}/ok`, [pki.caPem]);
    assert.equal(out.status, 'up', out.detail);
    assert.equal(out.expiry?.kind, 'certificate');
    const days = (out.expiry!.expires - Date.now()) / DAY;
    assert.ok(days > 89 && days <= 90, `expires in ${days} days`);
  });

  test('the certificate of the final URL after redirects is recorded', async () => {
    const out = await run(`${good}/to?url=${encodeURIComponent(`${soon}/ok`)}`, [pki.caPem]);
    assert.equal(out.status, 'degraded', out.detail);
    assert.ok(out.expiry!.expires - Date.now() <= 5 * DAY, "the second server's certificate");
  });

  test('a redirect from https to plain http leaves no certificate observed', async () => {
    const plain = http.createServer(routes);
    const plainBase = `http://127.0.0.1:${await listen(plain)}`;
    const out = await run(`${soon}/to?url=${encodeURIComponent(`${plainBase}/ok`)}`, [pki.caPem]);
    plain.closeAllConnections();
    plain.close();
    assert.equal(out.status, 'up', out.detail);
    assert.equal(out.expiry, undefined);
  });

  test('an untrusted certificate is down with a certificate error', async () => {
    const out = await run(`${good}/ok`);
    assert.equal(out.status, 'down');
    assert.match(out.detail, /^certificate error: /);
    assert.equal(out.expiry?.kind, 'certificate', 'the expiry is still observed');
    const selfSigned = await run(`${self}/ok`, [pki.caPem]);
    assert.equal(selfSigned.status, 'down');
    assert.match(selfSigned.detail, /^certificate error: .*self-signed/);
    assert.doesNotMatch(selfSigned.detail, /Node\.js|--use-system-ca/);
  });

  test('a certificate for other names says so without quoting the names it holds', async () => {
    // The leaf names 127.0.0.1 and localhost; 127.0.0.2 is loopback too, but not in it.
    const other = https.createServer(pki.leaf(90), routes);
    servers.push(other);
    other.listen(0, '127.0.0.2');
    await once(other, 'listening');
    const { port } = other.address() as AddressInfo;
    const out = await run(`https://127.0.0.2:${port}/ok`, [pki.caPem]);
    assert.deepEqual(
      [out.status, out.detail],
      ['down', 'certificate error: the certificate is not valid for 127.0.0.2'],
    );
  });

  test('a certificate expiring within 14 days is degraded', async () => {
    const out = await run(`${soon}/ok`, [pki.caPem]);
    assert.equal(out.status, 'degraded');
    assert.match(out.detail, /^200 OK; certificate expires in [45] days \(\d{4}-\d\d-\d\d\)$/);
    assert.ok(out.expiry!.expires - Date.now() <= 5 * DAY);
  });
});
