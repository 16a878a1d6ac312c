import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { processUsage } from '../bench/agent.ts';
import { AGENT_ENV, AGENT_NODE_FLAGS } from '../server/hosts/install.ts';
import { importGraph, runtimeSpecifiers } from './import-graph.ts';

const root = join(import.meta.dirname, '..');

/**
 * The agent's memory is mostly what it loads (docs/agent.md, "Footprint"): the schema library alone
 * would take about a third of it. The agent takes the protocol's types from protocol/agent.ts, which
 * the type stripping erases, and its values from modules that need no schema.
 */
test('the agent loads no schema library at run time: of the packages only smol-toml, of the server only its clock; not node:fs/promises', () => {
  const graph = importGraph(root, ['agent', 'protocol', 'runners', 'server']);
  const loaded = new Set<string>();
  const queue = ['agent/main.ts'];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (loaded.has(file)) continue;
    loaded.add(file);
    queue.push(...(graph.get(file) ?? []));
  }
  const specifiers = [...loaded].flatMap((file) =>
    runtimeSpecifiers(file, readFileSync(join(root, file), 'utf8')),
  );
  const packages = new Set(
    specifiers.filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:')),
  );
  assert.deepEqual([...packages], ['smol-toml']);
  // With readline and the file watchers it pulls in, about 1 MB: agent/fs.ts has what the agent needs.
  assert.ok(!specifiers.includes('node:fs/promises'), 'node:fs/promises is loaded');
  assert.deepEqual(
    [...loaded].filter((file) => file.startsWith('server/')),
    ['server/clock.ts'],
  );
  for (const schemas of [
    'protocol/agent.ts',
    'protocol/check.ts',
    'protocol/text.ts',
    'protocol/messages.ts',
  ])
    assert.ok(!loaded.has(schemas), `${schemas} is loaded`);
});

test('npm run agent runs the agent with the Node flags and environment of the install commands', () => {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const env = Object.entries(AGENT_ENV).map(([name, value]) => `${name}=${value} `);
  assert.equal(scripts.agent, `${env.join('')}node ${AGENT_NODE_FLAGS.join(' ')} agent/main.ts`);
});

test("the agent bench reads a process's memory as /proc has it: RSS, its peak, and its anonymous and file parts", () => {
  const usage = processUsage(process.pid);
  assert.ok(usage);
  for (const value of Object.values(usage)) assert.ok(Number.isFinite(value) && value > 0);
  assert.ok(usage.hwmKb >= usage.rssKb);
  // RSS is RssAnon + RssFile + RssShmem, each read at its own moment: a little apart at most.
  assert.ok(Math.abs(usage.rssKb - usage.anonKb - usage.fileKb) < 4096);
  assert.equal(processUsage(2 ** 22 + 1), null);
});
