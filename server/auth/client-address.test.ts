import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { clientAddress, parseProxyEntry, rateKey, TrustedProxies } from './client-address.ts';

function req(peer: string, xff?: string): FastifyRequest {
  return {
    socket: { remoteAddress: peer },
    headers: xff === undefined ? {} : { 'x-forwarded-for': xff },
  } as unknown as FastifyRequest;
}

test('trusted_proxies entries: addresses and CIDR ranges, IPv4 and IPv6', () => {
  const proxies = new TrustedProxies([
    '10.0.0.0/8',
    '192.168.1.7',
    'fd00::/8',
    '::1',
    'nonsense',
    '1.2.3.4/33',
  ]);
  assert.equal(proxies.has('10.20.30.40'), true);
  assert.equal(proxies.has('11.0.0.1'), false);
  assert.equal(proxies.has('192.168.1.7'), true);
  assert.equal(proxies.has('192.168.1.8'), false);
  assert.equal(proxies.has('fd12:3456::1'), true);
  assert.equal(proxies.has('fe80::1'), false);
  assert.equal(proxies.has('::1'), true);
  assert.equal(proxies.has('::ffff:10.1.2.3'), true, 'IPv4-mapped IPv6 peers match IPv4 entries');
  assert.equal(proxies.has('1.2.3.4'), false, 'invalid entries match nothing');
  assert.equal(parseProxyEntry('1.2.3.4/33'), null);
  assert.equal(parseProxyEntry('fd00::/129'), null);
  assert.deepEqual(parseProxyEntry('2001:db8::/32'), { address: '2001:db8::', prefix: 32, family: 6 });
});

test('X-Forwarded-For is read only when the peer is a trusted proxy', () => {
  const proxies = new TrustedProxies(['127.0.0.1', '10.0.0.0/8']);
  assert.equal(clientAddress(req('203.0.113.9', '198.51.100.1'), proxies), '203.0.113.9');
  assert.equal(clientAddress(req('127.0.0.1', '198.51.100.1'), proxies), '198.51.100.1');
  assert.equal(clientAddress(req('127.0.0.1'), proxies), '127.0.0.1');
  // Proxies in the chain are skipped from the right; a spoofed leftmost entry is not believed.
  assert.equal(clientAddress(req('127.0.0.1', '6.6.6.6, 198.51.100.1, 10.1.1.1'), proxies), '198.51.100.1');
  assert.equal(clientAddress(req('::ffff:127.0.0.1', '2001:db8::5'), proxies), '2001:db8::5');
  assert.equal(clientAddress(req('127.0.0.1', 'garbage'), proxies), '127.0.0.1');
  assert.equal(clientAddress(req('127.0.0.1', '198.51.100.1'), new TrustedProxies([])), '127.0.0.1');
});

test('rate limits count IPv4 addresses alone and IPv6 addresses by their /64', () => {
  assert.equal(rateKey('203.0.113.7'), '203.0.113.7');
  assert.equal(rateKey('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(rateKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(rateKey('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
  assert.equal(rateKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(rateKey('::1'), '0:0:0:0::/64');
});
