// Builds the panel after `npm install`, so that `npm start` serves it on a fresh clone.
// An install without dev dependencies has no Vite: then the server's built files stay as they are.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
let vite;
try {
  vite = await import(require.resolve('vite'));
} catch {
  console.warn(
    'mon: Vite is not installed; the panel is not rebuilt (install dev dependencies to build it).',
  );
  process.exit(0);
}
const root = import.meta.dirname;
await vite.build({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'warn' });
console.log('mon: panel built into panel/dist');
