import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import packageJson from './package.json' with { type: 'json' };

/**
 * The agent as one self-contained file (`agent/dist/mon-agent.mjs`): agent/main.ts with everything it
 * imports (the runners, the protocol, zod, smol-toml) bundled by rolldown into one ES module for Node 20
 * and later. A host runs it with `node mon-agent.mjs` and needs nothing else: no npm install, no
 * node_modules. Built by `npm install` (postinstall) and by the server on the first request for it
 * when missing. `node agent/build.ts` builds it by hand.
 */
export const AGENT_FILE = join(import.meta.dirname, 'dist/mon-agent.mjs');

export async function buildAgent(file = AGENT_FILE): Promise<{ file: string; bytes: number }> {
  // Imported here: rolldown is a dev dependency, absent from an install without them.
  const { build } = await import('rolldown');
  const problems: string[] = [];
  const { output } = await build({
    input: join(import.meta.dirname, 'main.ts'),
    platform: 'node',
    tsconfig: false,
    transform: { target: 'node20' },
    logLevel: 'warn',
    onLog(level, log) {
      // An import left outside the file would fail on the host, where nothing is installed.
      if (level === 'warn' && log.code === 'UNRESOLVED_IMPORT') problems.push(log.message);
    },
    write: false,
    output: {
      format: 'esm',
      codeSplitting: false,
      banner: `#!/usr/bin/env node\n// mon agent ${packageJson.version}: one self-contained file (docs/agent.md). Run: node mon-agent.mjs`,
    },
  });
  if (problems.length > 0)
    throw new Error(`the agent bundle would import what a host lacks: ${problems.join('; ')}`);
  const [chunk] = output;
  if (chunk?.type !== 'chunk' || output.length !== 1) throw new Error('the agent bundle is not one file');
  // Whole or not at all: the server may be serving the file meanwhile.
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, chunk.code, { mode: 0o644 });
    await rename(temp, file);
  } finally {
    await rm(temp, { force: true });
  }
  return { file, bytes: Buffer.byteLength(chunk.code) };
}

if (import.meta.main) {
  const built = await buildAgent(process.argv[2]);
  console.log(`mon: agent built into ${built.file} (${Math.round(built.bytes / 1024)} KiB)`);
}
