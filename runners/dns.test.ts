import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { dnsRunner } from './dns.ts';
import { checkOf, contextOf } from './fixtures/context.ts';
import { findDnsmasq, startDnsmasq, type TestDns } from './fixtures/dnsmasq.ts';

const dnsmasq = findDnsmasq();

describe('dns runner', {
  skip: dnsmasq ? false : 'dnsmasq is not installed (apt-get install dnsmasq-base)',
}, () => {
  let dns: TestDns;
  before(async () => {
    dns = await startDnsmasq(dnsmasq!, [
      '--address=/app.test/10.1.2.3',
      '--address=/gone.test/',
      '--host-record=web.test,10.9.8.7,fd00::7',
      '--cname=alias.test,web.test',
      '--cname=first.test,middle.test',
      '--cname=middle.test,web.test',
    ]);
  });
  after(() => dns.stop());
  const run = (target: string, expect: object[] = [], timeoutMs = 3000) =>
    dnsRunner(checkOf({ kind: 'dns', target, expect, timeoutMs }), contextOf({ dnsServers: [dns.server] }));

  test('a name that resolves is up, with its answers', async () => {
    const out = await run('app.test');
    assert.deepEqual([out.status, out.detail], ['up', '10.1.2.3']);
    assert.equal(typeof out.latencyMs, 'number');
    const both = await run('web.test');
    assert.deepEqual([both.status, both.detail], ['up', '10.9.8.7, fd00::7']);
  });

  test('CNAMEs are followed and their target is an answer', async () => {
    const out = await run('alias.test', [{ equals: '10.9.8.7' }, { bodyContains: 'web.' }]);
    assert.deepEqual([out.status, out.detail], ['up', 'web.test, 10.9.8.7, fd00::7']);
    // A chain: every name of it is an answer, the canonical name included.
    const chain = await run('first.test', [{ equals: 'web.test' }]);
    assert.deepEqual([chain.status, chain.detail], ['up', 'middle.test, web.test, 10.9.8.7, fd00::7']);
  });

  test('equals passes when some answer equals the value', async () => {
    assert.equal((await run('app.test', [{ equals: '10.1.2.3' }])).status, 'up');
    const out = await run('app.test', [{ equals: '10.1.2.4' }]);
    assert.deepEqual([out.status, out.detail], ['down', '10.1.2.3; no answer equals "10.1.2.4"']);
    const soft = await run('app.test', [{ bodyContains: '10.9.', degraded: true }]);
    assert.deepEqual([soft.status, soft.detail], ['degraded', '10.1.2.3; no answer contains "10.9."']);
    assert.equal((await run('app.test', [{ responseTimeBelowMs: 2000 }])).status, 'up');
  });

  test('NXDOMAIN is down', async () => {
    const out = await run('gone.test');
    assert.deepEqual([out.status, out.detail, out.latencyMs], ['down', 'name not found (NXDOMAIN)', null]);
  });

  test('a server that never answers: the run ends at the timeout', async () => {
    const silent = dgram.createSocket('udp4');
    silent.bind(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const out = await dnsRunner(
        checkOf({ kind: 'dns', target: 'app.test', timeoutMs: 300 }),
        contextOf({ dnsServers: [`127.0.0.1:${silent.address().port}`] }),
      );
      assert.deepEqual([out.status, out.detail], ['down', 'timed out after 300 ms']);
    } finally {
      silent.close();
    }
  });
});
