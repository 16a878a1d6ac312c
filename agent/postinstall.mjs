// Builds the one-file agent (agent/dist/mon-agent.mjs) after `npm install`, so that the server can
// serve it to hosts. An install without dev dependencies has no rolldown: then the file is left as it
// is, and the server builds it on the first request if it can.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
try {
  require.resolve('rolldown');
} catch {
  console.warn(
    'mon: rolldown is not installed; the agent file is not rebuilt (install dev dependencies to build it).',
  );
  process.exit(0);
}
if (!process.features.typescript) {
  console.warn(
    `mon: Node ${process.version} cannot run the agent's build (agent/build.ts); run npm install with Node 24.`,
  );
  process.exit(0);
}
const { buildAgent } = await import('./build.ts');
const built = await buildAgent();
console.log(`mon: agent built into ${built.file}`);
