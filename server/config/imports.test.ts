import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const here = import.meta.dirname;
const server = resolve(here, '..');

/** Relative modules a file imports at run time (`import type` and `{ type X }`-only imports left out). */
function runtimeImports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of source.matchAll(/^(?:import|export)(\s+type)?\s+([^;]*?)\s*from\s+'(\.[^']+)'/gm)) {
    const names = /^\{([^}]*)\}$/
      .exec(m[2]!.trim())?.[1]
      ?.split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    const typeOnly = m[1] !== undefined || (names?.every((n) => n.startsWith('type ')) ?? false);
    if (!typeOnly) out.push(relative(server, resolve(dirname(file), m[3]!)));
  }
  return out;
}

test('config/ reaches the features only through sections.ts; sections use only leaf modules of config/', () => {
  const modules = readdirSync(here).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  for (const module of modules) {
    if (module === 'sections.ts') continue;
    for (const target of runtimeImports(join(here, module))) {
      assert.ok(
        target.startsWith('config/') || target.startsWith('../protocol/'),
        `config/${module} imports ${target}`,
      );
    }
  }
  const leaves = ['durations.ts', 'env-refs.ts', 'fields.ts', 'interpolate.ts', 'paths.ts', 'section.ts'];
  const features = runtimeImports(join(here, 'sections.ts')).filter((t) => !t.startsWith('config/'));
  assert.ok(features.length >= 4);
  for (const feature of [...features, 'config/core.ts']) {
    for (const target of runtimeImports(join(server, feature))) {
      if (!target.startsWith('config/')) continue;
      assert.ok(leaves.includes(target.slice('config/'.length)), `${feature} imports ${target}`);
    }
  }
});
