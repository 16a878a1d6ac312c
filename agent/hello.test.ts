import assert from 'node:assert/strict';
import os from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { AGENT_PROTOCOL, helloFrameSchema } from '../protocol/agent.ts';
import { tempDir } from '../server/testing.ts';
import { helloFrame, prettyName } from './hello.ts';

const root = join(import.meta.dirname, 'fixtures/host-root');

test('hello: version, protocol and capabilities, and the host as its root shows it', async () => {
  const frame = await helloFrame(root, 1000, '0.1.0');
  assert.deepEqual(frame, {
    kind: 'hello',
    ts: 1000,
    agentVersion: '0.1.0',
    protocol: AGENT_PROTOCOL,
    capabilities: ['ping', 'headers'],
    hostname: 'web-1',
    os: 'Debian GNU/Linux 12 (bookworm)',
    kernel: '6.1.0-18-amd64',
    arch: os.machine(),
    cores: 2,
  });
  assert.ok(helloFrameSchema.safeParse(frame).success);
});

test('hello: what the root does not have comes from what Node sees', async () => {
  const { dir, remove } = tempDir('mon-hello-');
  try {
    const frame = await helloFrame(dir, 1000, '0.1.0');
    assert.equal(frame.hostname, os.hostname());
    assert.equal(frame.kernel, os.release());
    assert.equal(frame.cores, os.availableParallelism());
    assert.ok(helloFrameSchema.safeParse(frame).success);
  } finally {
    remove();
  }
});

test('PRETTY_NAME quoted or not', () => {
  assert.equal(prettyName('NAME=x\nPRETTY_NAME="Ubuntu 24.04 LTS"\n'), 'Ubuntu 24.04 LTS');
  assert.equal(prettyName("PRETTY_NAME='Alpine Linux v3.20'"), 'Alpine Linux v3.20');
  assert.equal(prettyName('PRETTY_NAME=Arch'), 'Arch');
  assert.equal(prettyName('NAME=x'), null);
  assert.equal(prettyName(null), null);
});
