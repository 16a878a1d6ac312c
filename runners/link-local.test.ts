import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import type { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { dnsRunner } from './dns.ts';
import { checkOf, contextOf, listen } from './fixtures/context.ts';
import { findDnsmasq, startDnsmasq, type TestDns } from './fixtures/dnsmasq.ts';
import { httpRunner } from './http.ts';
import { pingRunner } from './ping.ts';
import { tcpRunner } from './tcp.ts';

const dnsmasq = findDnsmasq();

/** Every address a client socket of this process tries to connect to, as Node reports it. */
const attempts: string[] = [];
const onSocket = ({ socket }: { socket: Socket }) =>
  socket.on('connectionAttempt', (address: string) => attempts.push(address));

const refusal = (what: string) =>
  `refused ${what}: a link-local address, where cloud metadata services answer; the check does not allow link-local addresses`;

describe('link-local and cloud metadata addresses', {
  skip: dnsmasq ? false : 'dnsmasq is not installed (apt-get install dnsmasq-base)',
}, () => {
  let dns: TestDns;
  let port = 0;
  const web = http.createServer((req, res) => {
    if (req.url?.startsWith('/to?')) {
      res.writeHead(302, { location: new URL(req.url, 'http://x').searchParams.get('url') ?? '/' });
      return res.end();
    }
    res.end('ok');
  });
  before(async () => {
    port = await listen(web);
    diagnostics.subscribe('net.client.socket', onSocket as diagnostics.ChannelListener);
    dns = await startDnsmasq(dnsmasq!, [
      '--address=/loop.test/127.0.0.1',
      '--address=/meta.test/169.254.169.254',
      '--host-record=mixed.test,127.0.0.1,fe80::1',
      // The metadata service's name is refused as a name, wherever it points.
      '--address=/metadata.google.internal/127.0.0.1',
    ]);
  });
  after(async () => {
    diagnostics.unsubscribe('net.client.socket', onSocket as diagnostics.ChannelListener);
    web.closeAllConnections();
    web.close();
    await dns.stop();
  });
  const ctx = () => contextOf({ dnsServers: [dns.server] });
  const runHttp = (target: string, extra: object = {}) =>
    httpRunner(checkOf({ kind: 'http', target, timeoutMs: 2000, ...extra }), ctx());

  test('http: a name is checked on the address it resolves to, before any connection', async () => {
    attempts.length = 0;
    const loop = await runHttp(`http://loop.test:${port}/`);
    assert.deepEqual(
      [loop.status, loop.detail],
      ['up', '200 OK'],
      'loopback and private ranges stay allowed',
    );
    assert.deepEqual(attempts, ['127.0.0.1']);

    attempts.length = 0;
    const meta = await runHttp(`http://meta.test:${port}/latest/meta-data/`);
    assert.deepEqual([meta.status, meta.detail], ['down', refusal('meta.test (169.254.169.254)')]);
    const mixed = await runHttp(`http://mixed.test:${port}/`);
    assert.deepEqual([mixed.status, mixed.detail], ['down', refusal('mixed.test (fe80::1)')]);
    const named = await runHttp(`http://metadata.google.internal:${port}/computeMetadata/v1/`);
    assert.deepEqual(
      [named.status, named.detail],
      [
        'down',
        'refused metadata.google.internal: the name of a cloud metadata service; the check does not allow link-local addresses',
      ],
    );
    for (const target of [
      'http://169.254.169.254/',
      'http://[::ffff:169.254.169.254]/',
      'http://[fd00:ec2::254]/',
    ]) {
      const literal = await runHttp(target);
      assert.equal(literal.status, 'down', target);
      assert.match(literal.detail, /^refused .*; the check does not allow link-local addresses$/, target);
    }
    assert.deepEqual(attempts, [], 'no connection was attempted');
  });

  test('http: a redirect to a link-local address fails without connecting to it', async () => {
    for (const to of ['http://169.254.169.254/latest/meta-data/', `http://meta.test:${port}/`]) {
      attempts.length = 0;
      const out = await runHttp(`http://127.0.0.1:${port}/to?url=${encodeURIComponent(to)}`);
      assert.deepEqual(
        [out.status, out.detail],
        ['down', 'refused a redirect to a link-local address; the check does not allow link-local addresses'],
        to,
      );
      assert.ok(
        attempts.every((address) => address === '127.0.0.1'),
        `attempts: ${attempts.join(', ')}`,
      );
    }
  });

  test('http: a check that allows link-local addresses connects to them', async () => {
    attempts.length = 0;
    // Port 9 (discard): nothing of interest answers there, and the short timeout ends the run.
    await httpRunner(
      checkOf({ kind: 'http', target: 'http://meta.test:9/', timeoutMs: 300, allowLinkLocal: true }),
      ctx(),
    );
    assert.deepEqual(attempts, ['169.254.169.254']);
  });

  test('tcp: names and addresses are refused the same way', async () => {
    attempts.length = 0;
    const run = (target: string) => tcpRunner(checkOf({ kind: 'tcp', target, timeoutMs: 2000 }), ctx());
    assert.deepEqual([(await run(`loop.test:${port}`)).detail], ['connected']);
    assert.deepEqual(attempts, ['127.0.0.1']);
    attempts.length = 0;
    assert.equal((await run(`meta.test:${port}`)).detail, refusal('meta.test (169.254.169.254)'));
    assert.equal((await run('169.254.169.254:80')).detail, refusal('169.254.169.254'));
    assert.equal((await run('[fe80::1]:22')).detail, refusal('fe80::1'));
    assert.deepEqual(attempts, []);
  });

  test('ping: the name is looked up by mon and the checked address is pinged', async () => {
    // No ping program on this PATH: a refusal comes before ping would be started.
    const refused = await pingRunner(
      checkOf({ kind: 'ping', target: 'meta.test' }),
      contextOf({ dnsServers: [dns.server], env: { PATH: '/nonexistent' } }),
    );
    assert.deepEqual([refused.status, refused.detail], ['down', refusal('meta.test (169.254.169.254)')]);
    const loop = await pingRunner(
      checkOf({ kind: 'ping', target: 'loop.test', timeoutMs: 3000 }),
      contextOf({ dnsServers: [dns.server], env: { PATH: '/usr/local/bin:/usr/bin:/bin' } }),
    );
    assert.equal(loop.status, 'up', loop.detail);
  });

  test('dns checks may resolve to link-local addresses: they ask the resolvers of the server only', async () => {
    const out = await dnsRunner(checkOf({ kind: 'dns', target: 'meta.test' }), ctx());
    assert.deepEqual([out.status, out.detail], ['up', '169.254.169.254']);
  });
});
