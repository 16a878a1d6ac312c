import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { once } from 'node:events';
import http from 'node:http';
import type { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Receiver, startReceiver } from './fixtures/receiver.ts';
import { type ScriptedDns, startScriptedDns } from './fixtures/scripted-dns.ts';
import {
  closeIdleConnections,
  OutboundRefused,
  type OutboundRequest,
  outboundAddress,
  outboundRequest,
} from './outbound.ts';

/**
 * The guard of mon's own requests, against real servers on loopback and a scripted DNS server. A test
 * has no server on the internet: a receiver on 127.0.0.2, named in `publicAddresses`, stands in for
 * one; every other address is judged as in production.
 */

/** Every address a client socket of this process tries to connect to, as Node reports it. */
const attempts: string[] = [];
const onSocket = ({ socket }: { socket: Socket }) =>
  socket.on('connectionAttempt', (address: string) => attempts.push(address));

const notAllowed = 'private addresses are not allowed here';
const publicStandIn = '127.0.0.2';

/** The rejection of `request`, which must be an OutboundRefused. */
async function refusal(request: OutboundRequest): Promise<string> {
  const error = await outboundRequest(request).then(
    (answer) => assert.fail(`answered ${answer.status} from ${answer.url}`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof OutboundRefused, String(error));
  return error.message;
}

describe('outbound requests', () => {
  let dns: ScriptedDns;
  /** A receiver on 127.0.0.1: what a refused request would have reached. */
  let inside: Receiver;
  /** Receivers standing in for servers on the internet, on 127.0.0.2. */
  let outside: Receiver;
  let outsideToo: Receiver;
  let insidePort = 0;
  before(async () => {
    diagnostics.subscribe('net.client.socket', onSocket as diagnostics.ChannelListener);
    inside = await startReceiver();
    insidePort = Number(new URL(inside.url).port);
    outside = await startReceiver({ host: publicStandIn });
    outsideToo = await startReceiver({ host: publicStandIn });
    outside.answer = (request) => {
      const to = request.query.get('to');
      return to ? { status: 302, headers: { location: to } } : { status: 200, body: 'outside' };
    };
    let rebinds = 0;
    dns = await startScriptedDns((name, type) => {
      if (type === 'AAAA') return name === 'v6loop.test' ? ['::1'] : [];
      if (name === 'loop.test') return ['127.0.0.1'];
      if (name === 'outside.test') return [publicStandIn];
      if (name === 'mixed.test') return [publicStandIn, '10.1.2.3'];
      if (name === 'cgnat.test') return ['100.64.0.7'];
      // Public to one query, loopback to the next, and so on: a rebinding name.
      if (name === 'rebind.test') return [rebinds++ % 2 === 0 ? publicStandIn : '127.0.0.1'];
      return name === 'v6loop.test' ? [] : null;
    });
  });
  after(async () => {
    diagnostics.unsubscribe('net.client.socket', onSocket as diagnostics.ChannelListener);
    await Promise.all([inside.close(), outside.close(), outsideToo.close(), dns.close()]);
  });
  const guarded = (url: string, extra: Partial<OutboundRequest> = {}): OutboundRequest => ({
    url,
    allowPrivate: false,
    dnsServers: [dns.server],
    publicAddresses: [publicStandIn],
    timeoutMs: 3000,
    ...extra,
  });

  test('private addresses as written are refused before any connection, naming why', async () => {
    attempts.length = 0;
    inside.received.length = 0;
    const expected: [string, string][] = [
      ['http://10.0.0.1/', 'refused 10.0.0.1: a private address'],
      [`http://127.0.0.1:${insidePort}/`, 'refused 127.0.0.1: a loopback address'],
      [`http://[::1]:${insidePort}/`, 'refused ::1: a loopback address'],
      ['http://169.254.169.254/latest/meta-data/', 'refused 169.254.169.254: a link-local address'],
      ['http://100.64.0.1/', 'refused 100.64.0.1: a carrier-grade NAT address'],
      ['http://224.0.0.1/', 'refused 224.0.0.1: a multicast address'],
      ['http://[fc00::1]/', 'refused fc00::1: a private address'],
      [`http://[::ffff:127.0.0.1]:${insidePort}/`, 'refused ::ffff:7f00:1: a loopback address'],
      [`http://[::ffff:7f00:1]:${insidePort}/`, 'refused ::ffff:7f00:1: a loopback address'],
      // Other spellings of 127.0.0.1 and 0.0.0.0, which URLs normalise to those addresses.
      [`http://2130706433:${insidePort}/`, 'refused 127.0.0.1: a loopback address'],
      [`http://0x7f.1:${insidePort}/`, 'refused 127.0.0.1: a loopback address'],
      [`http://0:${insidePort}/`, 'refused 0.0.0.0: an unspecified address'],
    ];
    for (const [url, message] of expected) {
      assert.equal(await refusal(guarded(url)), `${message}; ${notAllowed}`, url);
      assert.equal(await refusal(guarded(url, { method: 'POST', body: 'x' })), `${message}; ${notAllowed}`);
    }
    assert.deepEqual(attempts, [], 'no connection was attempted');
    assert.equal(inside.received.length, 0);
  });

  test('with allowPrivate the same addresses are reached', async () => {
    const v6 = await startReceiver({ host: '::1' });
    try {
      for (const url of [
        `${inside.url}/a`,
        `http://[::ffff:127.0.0.1]:${insidePort}/b`,
        `http://localhost:${insidePort}/c`,
        `${v6.url}/d`,
      ]) {
        const answer = await outboundRequest(guarded(url, { allowPrivate: true, dnsServers: undefined }));
        assert.deepEqual([answer.status, answer.body], [200, 'ok'], url);
      }
      assert.deepEqual(
        inside.received.slice(-3).map((r) => r.url),
        ['/a', '/b', '/c'],
      );
      assert.equal(v6.received[0]?.url, '/d');
    } finally {
      await v6.close();
    }
  });

  test('a name is refused when any address it resolves to is private', async () => {
    attempts.length = 0;
    const expected: [string, string][] = [
      ['loop.test', 'refused loop.test (127.0.0.1): a loopback address'],
      ['v6loop.test', 'refused v6loop.test (::1): a loopback address'],
      ['mixed.test', 'refused mixed.test (10.1.2.3): a private address'],
      ['cgnat.test', 'refused cgnat.test (100.64.0.7): a carrier-grade NAT address'],
    ];
    for (const [name, message] of expected)
      assert.equal(await refusal(guarded(`http://${name}:${insidePort}/`)), `${message}; ${notAllowed}`);
    // `localhost` through the system's resolution, as production resolves it.
    assert.match(
      await refusal(guarded(`http://localhost:${insidePort}/`, { dnsServers: undefined })),
      /^refused localhost \((127\.0\.0\.1|::1)\): a loopback address; private addresses are not allowed here$/,
    );
    assert.deepEqual(attempts, []);
    // A public name is reached on the address it resolved to.
    const answer = await outboundRequest(guarded(`http://outside.test:${new URL(outside.url).port}/`));
    assert.deepEqual([answer.status, answer.body], [200, 'outside']);
    assert.deepEqual(attempts, [publicStandIn]);
    await assert.rejects(outboundRequest(guarded('http://nowhere.test/')), { code: 'ENOTFOUND' });
  });

  test('a rebinding name is connected to on the address that was checked, looked up once per request', async () => {
    // The private receiver listens on the public one's port: a connection there would be answered.
    const port = Number(new URL(outside.url).port);
    const sameport = http.createServer((_req, res) => res.end('inside'));
    sameport.listen(port, '127.0.0.1');
    await once(sameport, 'listening');
    const got: string[] = [];
    sameport.on('request', (req) => got.push(req.url ?? ''));
    try {
      attempts.length = 0;
      dns.queries.length = 0;
      const first = await outboundRequest(guarded(`http://rebind.test:${port}/`));
      assert.deepEqual([first.status, first.body], [200, 'outside'], 'checked public, connected public');
      assert.deepEqual(attempts, [publicStandIn]);
      assert.deepEqual(
        dns.queries.filter((q) => q.startsWith('A ')),
        ['A rebind.test'],
        'one lookup: the socket connects to the answer the guard checked',
      );
      // A second request reuses the connection kept from the first: the address that was checked.
      const again = await outboundRequest(guarded(`http://rebind.test:${port}/`));
      assert.deepEqual([again.status, again.body], [200, 'outside']);
      assert.deepEqual(attempts, [publicStandIn], 'no new connection, no new lookup');
      // Without a kept connection the name is looked up again and answers loopback: that request is
      // refused, and nothing reaches it.
      closeIdleConnections();
      assert.equal(
        await refusal(guarded(`http://rebind.test:${port}/`)),
        `refused rebind.test (127.0.0.1): a loopback address; ${notAllowed}`,
      );
      assert.deepEqual(attempts, [publicStandIn]);
      assert.deepEqual(got, []);
    } finally {
      sameport.close();
    }
  });

  test('GET and HEAD follow redirects through the same guard; other methods never follow', async () => {
    const via = (to: string) => `${outside.url}/?to=${encodeURIComponent(to)}`;
    attempts.length = 0;
    inside.received.length = 0;
    for (const [to, message] of [
      [`${inside.url}/`, 'refused 127.0.0.1: a loopback address'],
      [`http://loop.test:${insidePort}/`, 'refused loop.test (127.0.0.1): a loopback address'],
      [`http://[::ffff:7f00:1]:${insidePort}/`, 'refused ::ffff:7f00:1: a loopback address'],
      ['http://169.254.169.254/', 'refused 169.254.169.254: a link-local address'],
    ] as const) {
      for (const method of ['GET', 'HEAD'] as const)
        assert.equal(
          await refusal(guarded(via(to), { method })),
          `${message}; ${notAllowed}`,
          `${method} ${to}`,
        );
    }
    assert.ok(
      attempts.every((a) => a === publicStandIn),
      `attempts: ${attempts.join(', ')}`,
    );
    assert.equal(inside.received.length, 0);
    assert.match(
      await refusal(guarded(via('file:///etc/passwd'))),
      /^refused file: URL: only http and https are sent$/,
    );

    // Allowed hops are followed, and the answer names where it came from.
    const final = `${outsideToo.url}/final`;
    const followed = await outboundRequest(guarded(via(final)));
    assert.deepEqual([followed.status, followed.body, followed.url], [200, 'ok', final]);

    // POST answers the redirect as it came: nothing is sent to where it points.
    outsideToo.received.length = 0;
    const posted = await outboundRequest(guarded(via(final), { method: 'POST', body: 'x' }));
    assert.deepEqual([posted.status, posted.headers.location, posted.url], [302, final, via(final)]);
    assert.equal(outsideToo.received.length, 0);
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const)
      assert.equal((await outboundRequest(guarded(via(final), { method }))).status, 302);

    // At most five redirects (SPEC: HTTP redirects followed), then the 3xx is the answer.
    let chain = final;
    for (let i = 0; i < 6; i++) chain = via(chain);
    const long = await outboundRequest(guarded(chain));
    assert.equal(long.status, 302);
    assert.equal((await outboundRequest(guarded(via(via(via(final)))))).status, 200);
  });

  test('credentials are not carried to another origin by a redirect', async () => {
    outsideToo.received.length = 0;
    const headers = { authorization: 'Bearer tk_secret', cookie: 'a=b', 'x-kept': 'yes' };
    const to = `${outsideToo.url}/elsewhere`;
    await outboundRequest(guarded(`${outside.url}/?to=${encodeURIComponent(to)}`, { headers }));
    const [elsewhere] = outsideToo.received;
    assert.equal(elsewhere?.headers.authorization, undefined);
    assert.equal(elsewhere?.headers.cookie, undefined);
    assert.equal(elsewhere?.headers['x-kept'], 'yes');
    // The same origin keeps them.
    outside.received.length = 0;
    await outboundRequest(guarded(`${outside.url}/?to=${encodeURIComponent('/same')}`, { headers }));
    assert.deepEqual(
      outside.received.map((r) => [r.url, r.headers.authorization]),
      [
        [`/?to=${encodeURIComponent('/same')}`, 'Bearer tk_secret'],
        ['/same', 'Bearer tk_secret'],
      ],
    );
  });

  test('an endless answer is cut at maxBodyBytes; a silent one at the time limit; the caller may abort', async () => {
    const endless = http.createServer((_req, res) => {
      res.writeHead(200);
      const more = () => {
        while (res.write('x'.repeat(16_384))) {}
      };
      res.on('drain', more);
      more();
    });
    const silent = http.createServer(() => {});
    endless.listen(0, publicStandIn);
    silent.listen(0, publicStandIn);
    await Promise.all([once(endless, 'listening'), once(silent, 'listening')]);
    const portOf = (s: http.Server) => (s.address() as { port: number }).port;
    try {
      const started = Date.now();
      const cut = await outboundRequest(
        guarded(`http://${publicStandIn}:${portOf(endless)}/`, { maxBodyBytes: 1000, timeoutMs: 5000 }),
      );
      assert.deepEqual([cut.status, cut.body.length], [200, 1000]);
      assert.ok(Date.now() - started < 4000, 'not held until the time limit');

      await assert.rejects(
        outboundRequest(guarded(`http://${publicStandIn}:${portOf(silent)}/`, { timeoutMs: 200 })),
        { code: 'ETIMEDOUT', message: 'no answer within 200 ms' },
      );
      const controller = new AbortController();
      const aborted = outboundRequest(
        guarded(`http://${publicStandIn}:${portOf(silent)}/`, { signal: controller.signal }),
      );
      controller.abort(new Error('stopping'));
      await assert.rejects(aborted, { message: 'stopping' });
    } finally {
      endless.closeAllConnections();
      silent.closeAllConnections();
      endless.close();
      silent.close();
    }
  });

  test('outboundAddress (for clients that connect themselves) judges names and addresses the same way', async () => {
    await assert.rejects(outboundAddress('loop.test', false, [dns.server]), {
      message: `refused loop.test (127.0.0.1): a loopback address; ${notAllowed}`,
    });
    await assert.rejects(outboundAddress('[::1]', false), {
      message: `refused ::1: a loopback address; ${notAllowed}`,
    });
    await assert.rejects(outboundAddress('10.0.0.25', false), OutboundRefused);
    assert.deepEqual(await outboundAddress('loop.test', true, [dns.server]), {
      address: '127.0.0.1',
      family: 4,
    });
    assert.deepEqual(await outboundAddress('[::1]', true), { address: '::1', family: 6 });
    assert.deepEqual(await outboundAddress('8.8.8.8', false), { address: '8.8.8.8', family: 4 });
  });
});
