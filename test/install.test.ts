import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const root = join(import.meta.dirname, '..');
const read = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8'));

test('every dependency with an install script is approved in allowScripts', () => {
  // npm warns about unreviewed install scripts, and is to block them: the `node` package's sets up the
  // Node 24 that `npm start` runs on.
  const allowed: Record<string, boolean> = read('package.json').allowScripts ?? {};
  const lock: { packages: Record<string, { hasInstallScript?: boolean }> } = read('package-lock.json');
  const withScripts = Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith('node_modules/') && entry.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  assert.ok(withScripts.includes('node'));
  for (const name of withScripts) assert.equal(allowed[name], true, `${name} is reviewed in allowScripts`);
});
