import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

/**
 * The panel's layout rules (docs/panel.md): screens are reached only through the app's routes, and a
 * feature uses another feature only through its plain modules (keys, queries, pure helpers), never
 * through its components or screens.
 */

const root = import.meta.dirname;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The source files each file imports (static, dynamic and re-exports), as paths under panel/src. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.[^']+)'/g)].map((m) => m[1]!);
  return specifiers.map((s) => relative(root, resolve(dirname(file), s))).filter((p) => /\.tsx?$/.test(p));
}

const all = files(root).map((file) => ({ path: relative(root, file), imports: imports(file) }));
const featureOf = (path: string) => /^features\/([^/]+)\//.exec(path)?.[1] ?? null;

test('screens are imported only by the app shell', () => {
  const app = all.find((f) => f.path === 'app/App.tsx');
  assert.ok(app);
  const screens = app.imports.filter((p) => p.startsWith('features/'));
  assert.ok(screens.length >= 8, `the routes' screens: ${screens.join(', ')}`);
  for (const file of all) {
    if (file.path === 'app/App.tsx') continue;
    for (const screen of screens) {
      assert.ok(!file.imports.includes(screen), `${file.path} imports the screen ${screen}`);
    }
  }
});

test('a feature uses another feature only through its plain modules', () => {
  for (const file of all) {
    const own = featureOf(file.path);
    for (const target of file.imports) {
      const other = featureOf(target);
      if (own === null || other === null || other === own) continue;
      assert.ok(target.endsWith('.ts'), `${file.path} imports the component ${target} of another feature`);
    }
  }
});

test('shared pieces do not depend on features', () => {
  for (const file of all) {
    if (!file.path.startsWith('components/') && !file.path.startsWith('lib/')) continue;
    const into = file.imports.filter((p) => p.startsWith('features/') || p.startsWith('app/'));
    assert.deepEqual(into, [], `${file.path} imports ${into.join(', ')}`);
  }
});

test('the panel takes values from protocol modules without the schema library, only types from the others', () => {
  const protocol = resolve(root, '..', '..', 'protocol');
  for (const file of files(root)) {
    const text = readFileSync(file, 'utf8');
    // `import {...} from` with at least one value (not `import type`, not only `type` names).
    for (const m of text.matchAll(/import\s+(?!type\b)\{([^}]*)\}\s+from\s+'([^']*\/protocol\/[^']+)'/g)) {
      const names = m[1]!
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean);
      if (names.every((n) => n.startsWith('type '))) continue;
      const target = resolve(dirname(file), m[2]!);
      assert.ok(target.startsWith(protocol), m[2]);
      assert.doesNotMatch(
        readFileSync(target, 'utf8'),
        /from 'zod'/,
        `${relative(root, file)} loads ${relative(protocol, target)}, which loads zod into the panel`,
      );
    }
  }
});
