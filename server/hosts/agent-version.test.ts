import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { agentFileStale, buildAgent } from '../../agent/build.ts';
import { tempDir } from '../testing.ts';
import { hello, hostServer, T0 } from './testkit.ts';

/**
 * Finding agents to update: each one-file agent says its build (the package's version and a hash of
 * its code) in its hello, and the host reads say whether it is the build this server serves.
 */

const files = tempDir('mon-agent-version-');
let version = '';
const file = join(files.dir, 'mon-agent.mjs');
before(async () => {
  ({ version } = await buildAgent(file));
});
after(() => files.remove());

test('the host reads say whether each agent runs the agent this server serves, and the version a restart gives one that does not', async () => {
  assert.match(version, /^\d+\.\d+\.\d+\+[0-9a-f]{12}$/);
  const kit = await hostServer({ hosts: { agentFile: file } });
  try {
    const agents = { served: version, old: '0.1.0', source: '0.1.0+source', other: '0.1.0+0123456789ab' };
    for (const [name, agentVersion] of Object.entries(agents)) {
      const token = await kit.addHost(name);
      assert.equal((await kit.send(token, [hello(T0, { agentVersion })])).status, 200);
    }
    const list = await kit.inject('GET', '/api/v1/hosts');
    assert.equal(list.status, 200);
    const agentOf = (name: string) =>
      (list.body.hosts as { name: string; agent: Record<string, unknown> }[]).find((h) => h.name === name)
        ?.agent;
    assert.equal(agentOf('served')?.current, true);
    assert.equal(agentOf('served')?.update, undefined);
    for (const name of ['old', 'source', 'other']) {
      assert.equal(agentOf(name)?.version, agents[name as keyof typeof agents]);
      assert.equal(agentOf(name)?.current, false, name);
      assert.deepEqual(agentOf(name)?.update, { version }, name);
    }
    const host = await kit.inject('GET', '/api/v1/hosts/old');
    assert.equal(host.body.agent.current, false);
    assert.deepEqual(host.body.agent.update, { version });
    assert.equal((await kit.inject('GET', '/api/v1/hosts/served')).body.agent.current, true);
  } finally {
    await kit.server.dispose();
  }
});

test('with no agent file built the reads cannot tell (current: null), and do not build it', async () => {
  const missing = join(files.dir, 'never/mon-agent.mjs');
  const kit = await hostServer({ hosts: { agentFile: missing } });
  try {
    const token = await kit.addHost('web-1');
    await kit.send(token, [hello(T0, { agentVersion: version })]);
    const host = await kit.inject('GET', '/api/v1/hosts/web-1');
    assert.equal(host.body.agent.current, null);
    assert.equal(host.body.agent.update, undefined);
    assert.equal(existsSync(missing), false);
  } finally {
    await kit.server.dispose();
  }
});

test('a stale agent file (its list of sources missing) is read as it is by the host reads, not built again', async () => {
  // A copy of the file without its .sources.json: older than its sources, as far as the server knows.
  const stale = join(files.dir, 'copy/mon-agent.mjs');
  mkdirSync(join(files.dir, 'copy'));
  copyFileSync(file, stale);
  assert.equal(await agentFileStale(stale), true);
  const before = statSync(stale).mtimeMs;
  const kit = await hostServer({ hosts: { agentFile: stale } });
  try {
    const token = await kit.addHost('web-1');
    await kit.send(token, [hello(T0, { agentVersion: version })]);
    const list = await kit.inject('GET', '/api/v1/hosts');
    assert.equal(list.body.hosts[0].agent.current, true, 'the version of the file there');
    assert.equal((await kit.inject('GET', '/api/v1/hosts/web-1')).body.agent.current, true);
    assert.equal(statSync(stale).mtimeMs, before, 'not built again');
    assert.equal(existsSync(`${stale}.sources.json`), false);
    assert.equal(readFileSync(stale, 'utf8'), readFileSync(file, 'utf8'));
  } finally {
    await kit.server.dispose();
  }
});
