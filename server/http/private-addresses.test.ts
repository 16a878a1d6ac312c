import assert from 'node:assert/strict';
import { test } from 'node:test';
import { privateReason } from './private-addresses.ts';

test('IPv4: each range that is not the internet is named, and its edges are exact', () => {
  const cases: [string, string | null][] = [
    ['0.0.0.0', 'an unspecified address'],
    ['0.255.255.255', 'an unspecified address'],
    ['1.0.0.0', null],
    ['9.255.255.255', null],
    ['10.0.0.1', 'a private address'],
    ['10.255.255.255', 'a private address'],
    ['11.0.0.0', null],
    ['100.63.255.255', null],
    ['100.64.0.0', 'a carrier-grade NAT address'],
    ['100.127.255.255', 'a carrier-grade NAT address'],
    ['100.128.0.0', null],
    ['127.0.0.1', 'a loopback address'],
    ['127.255.255.254', 'a loopback address'],
    ['169.254.169.254', 'a link-local address'],
    ['169.255.0.1', null],
    ['172.15.255.255', null],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['172.32.0.0', null],
    ['192.0.0.8', 'a reserved address'],
    ['192.0.2.2', 'a documentation address'],
    ['192.0.3.1', null],
    ['192.167.255.255', null],
    ['192.168.1.1', 'a private address'],
    ['198.17.255.255', null],
    ['198.18.0.0', 'a benchmarking address'],
    ['198.19.255.255', 'a benchmarking address'],
    ['198.51.100.7', 'a documentation address'],
    ['203.0.113.9', 'a documentation address'],
    ['223.255.255.255', null],
    ['224.0.0.1', 'a multicast address'],
    ['239.255.255.250', 'a multicast address'],
    ['240.0.0.1', 'a reserved address'],
    ['255.255.255.255', 'a reserved address'],
    ['8.8.8.8', null],
    ['93.184.215.14', null],
  ];
  for (const [address, reason] of cases) assert.equal(privateReason(address), reason, address);
});

test('IPv6: loopback, private, link-local, multicast and IPv4 carried inside are named', () => {
  const cases: [string, string | null][] = [
    ['::', 'an unspecified address'],
    ['::1', 'a loopback address'],
    ['0:0:0:0:0:0:0:1', 'a loopback address'],
    ['[::1]', 'a loopback address'],
    ['fc00::1', 'a private address'],
    ['fdff:ffff::1', 'a private address'],
    ['fbff::1', null],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['febf:ffff::1', 'a link-local address'],
    ['fec0::1', 'a site-local address'],
    ['ff02::1', 'a multicast address'],
    ['2001:db8::1', 'a documentation address'],
    ['2606:4700:4700::1111', null],
    ['2a00:1450:4001:82b::200e', null],
    // IPv4 inside IPv6 is judged as the IPv4 address it reaches, in every spelling.
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['0:0:0:0:0:ffff:127.0.0.1', 'a loopback address'],
    ['::FFFF:A9FE:A9FE', 'a link-local address'],
    ['::ffff:10.0.0.1', 'a private address'],
    ['::ffff:100.64.0.1', 'a carrier-grade NAT address'],
    ['::ffff:8.8.8.8', null],
    ['::127.0.0.1', 'a loopback address'],
    ['64:ff9b::a00:1', 'a private address'],
    ['64:ff9b::808:808', null],
    ['64:ff9b:1::8.8.8.8', 'a private address'],
    ['2002:7f00:1::', 'a loopback address'],
    ['2002:a9fe:a9fe::1', 'a link-local address'],
    ['2002:808:808::', null],
  ];
  for (const [address, reason] of cases) assert.equal(privateReason(address), reason, address);
});

test('what is not an IP address is refused', () => {
  for (const text of ['example.com', 'localhost', '', '1.2.3', '127.0.0.1.', '::g'])
    assert.equal(privateReason(text), 'not an IP address', text);
});
