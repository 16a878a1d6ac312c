import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { importCycles, importGraph, runtimeSpecifiers } from './import-graph.ts';

const root = join(import.meta.dirname, '..');
const folders = ['server', 'protocol', 'agent', 'panel/src'];

test('no run-time import cycle between source files', () => {
  const cycles = importCycles(importGraph(root, folders));
  assert.deepEqual(cycles, [], `import cycles:\n${cycles.join('\n')}`);
});

test('cycle finder names each cycle of an in-memory graph, shortest first, and ignores acyclic parts', () => {
  const graph = new Map<string, string[]>([
    ['a.ts', ['b.ts']],
    ['b.ts', ['a.ts', 'c.ts']],
    ['c.ts', ['d.ts']],
    ['d.ts', ['b.ts']],
    ['e.ts', ['a.ts']],
    ['f.ts', ['f.ts']],
    ['g.ts', []],
  ]);
  assert.deepEqual(importCycles(graph), ['a.ts → b.ts → a.ts', 'c.ts → d.ts → b.ts → c.ts', 'f.ts → f.ts']);
  assert.deepEqual(
    importCycles(
      new Map([
        ['a.ts', ['b.ts']],
        ['b.ts', []],
      ]),
    ),
    [],
  );
});

test('type-only imports are not run-time edges; inline `type` specifiers and re-exports are', () => {
  const text = [
    "import type { A } from './type-only.ts';",
    "export type { B } from './type-export.ts';",
    "import { type C } from './inline-type.ts';",
    "import './side-effect.ts';",
    "import * as ns from './namespace.ts';",
    'import def, {',
    '  d,',
    "} from './multi-line.ts';",
    "export * from './star.ts';",
    "export { e } from './re-export.ts';",
    "const lazy = () => import('./dynamic.ts');",
    "// import { f } from './comment.ts';",
    'const s = "import { g } from \'./string.ts\'";',
  ].join('\n');
  assert.deepEqual(runtimeSpecifiers('x.ts', text), [
    './inline-type.ts',
    './side-effect.ts',
    './namespace.ts',
    './multi-line.ts',
    './star.ts',
    './re-export.ts',
  ]);
});

test('a folder with two files importing each other, through .ts, .tsx and index files, is a cycle', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mon-cycles-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'src', 'lib'), { recursive: true });
  mkdirSync(join(dir, 'src', 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(dir, 'src', 'a.ts'), "import { b } from './b.tsx';\nexport const a = 1;\n");
  writeFileSync(join(dir, 'src', 'b.tsx'), "import { a } from './lib';\nexport const b = a;\n");
  writeFileSync(join(dir, 'src', 'lib', 'index.ts'), "export { a } from '../a.ts';\n");
  writeFileSync(join(dir, 'src', 'c.ts'), "import type { a } from './a.ts';\nexport type C = typeof a;\n");
  writeFileSync(join(dir, 'src', 'node_modules', 'dep', 'x.ts'), "import './x.ts';\n");
  assert.deepEqual(importCycles(importGraph(dir, ['src'])), [
    'src/a.ts → src/b.tsx → src/lib/index.ts → src/a.ts',
  ]);
});
