import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { dirname, join, relative } from 'node:path';
import type { Plugin } from 'rolldown';
import packageJson from './package.json' with { type: 'json' };

/**
 * The agent as one self-contained file (`agent/dist/mon-agent.mjs`): agent/main.ts with everything it
 * imports (the runners, the protocol's plain modules, smol-toml) bundled and minified by rolldown into
 * one ES module for Node 20 and later. A host runs it with `node mon-agent.mjs` and needs nothing else:
 * no npm install, no node_modules. Built by `npm install` (postinstall) and by the server on the first
 * request for it when missing. `node agent/build.ts` builds it by hand.
 */
export const AGENT_FILE = join(import.meta.dirname, 'dist/mon-agent.mjs');

/** Beside the built file: the project's source files it was built from, relative to the project. */
const sourcesOf = (file: string) => `${file}.sources.json`;
const PROJECT = dirname(import.meta.dirname);

/**
 * The one-file agent's version (agent/version.ts): the package's, then `+` and the first 12 hex digits
 * of the SHA-256 of the bundle's code, taken with a placeholder where the version goes. The same code
 * gives the same version; any change to the agent's code, or to what it bundles, gives another. A host's
 * download checks the file it gets against it (server/hosts/fetch-agent.ts).
 */
export const VERSION_PLACEHOLDER = 'mon-agent-version-placeholder-00000000';
const VERSION_MODULE = join(import.meta.dirname, 'version.ts');

/**
 * The version the first lines of a built agent file name (`// mon agent 0.1.0+3f9a1c2b7d4e: …`), or
 * null when they name none with a hash: not an agent file, or one built before builds had a hash.
 */
export function agentFileVersion(head: string): string | null {
  return /^#!\/usr\/bin\/env node\n\/\/ mon agent (\S+\+\S+): /.exec(head)?.[1] ?? null;
}

/**
 * Whether the built file is missing or older than one of the sources it was built from (a `git pull`
 * without `npm install`): the server then builds it again rather than hand hosts an old agent.
 */
export async function agentFileStale(file = AGENT_FILE): Promise<boolean> {
  const built = await stat(file).catch(() => null);
  if (!built) return true;
  let sources: string[];
  try {
    sources = JSON.parse(await readFile(sourcesOf(file), 'utf8')) as string[];
  } catch {
    return true;
  }
  for (const source of sources) {
    const info = await stat(join(PROJECT, source)).catch(() => null);
    if (!info || info.mtimeMs > built.mtimeMs) return true;
  }
  return false;
}

/**
 * The agent file of the bundle's `code` (with VERSION_PLACEHOLDER where the version goes): its first
 * lines, put on after the build (the minifier would drop the comment), name the version, which the
 * server reads and a host's download checks the code against.
 */
export function agentFileText(code: string): { text: string; version: string } {
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 12);
  const version = `${packageJson.version}+${hash}`;
  const head = `#!/usr/bin/env node\n// mon agent ${version}: one self-contained file (docs/agent.md). Run: node mon-agent.mjs\n`;
  return { text: `${head}${code.replaceAll(VERSION_PLACEHOLDER, version)}`, version };
}

export async function buildAgent(
  file = AGENT_FILE,
): Promise<{ file: string; bytes: number; version: string }> {
  // Imported here: rolldown is a dev dependency, absent from an install without them.
  const { build } = await import('rolldown');
  const problems: string[] = [];
  const { output } = await build({
    input: join(import.meta.dirname, 'main.ts'),
    platform: 'node',
    plugins: [requireBuiltins, versionPlaceholder],
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
      // V8 keeps the whole source in memory while the agent runs, and as two bytes a character when one
      // is not Latin-1 (an ellipsis in a message): minified and ASCII only, it holds about 110 KB, not 345.
      // Names are kept for the stack traces of the agent's log.
      minify: true,
      keepNames: true,
      charset: 'ascii',
    },
  });
  if (problems.length > 0)
    throw new Error(`the agent bundle would import what a host lacks: ${problems.join('; ')}`);
  const [chunk] = output;
  if (chunk?.type !== 'chunk' || output.length !== 1) throw new Error('the agent bundle is not one file');
  const sources = chunk.moduleIds
    .filter((id) => id.startsWith(`${PROJECT}/`) && !id.includes('/node_modules/'))
    .map((id) => relative(PROJECT, id));
  if (!chunk.code.includes(VERSION_PLACEHOLDER)) throw new Error('the agent bundle lost its version');
  const { text: code, version } = agentFileText(chunk.code);
  // Whole or not at all: the server may be serving the file meanwhile.
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, code, { mode: 0o644 });
    await writeFile(sourcesOf(file), `${JSON.stringify(sources, null, 1)}\n`);
    await rename(temp, file);
  } finally {
    await rm(temp, { force: true });
  }
  return { file, bytes: Buffer.byteLength(code), version };
}

/** agent/version.ts in the bundle: the placeholder the build replaces with the version. */
const versionPlaceholder: Plugin = {
  name: 'mon:version',
  load(id) {
    if (id !== VERSION_MODULE) return null;
    return `export const AGENT_VERSION = ${JSON.stringify(VERSION_PLACEHOLDER)};`;
  },
};

const BUILTIN = '\0mon-builtin:';

/**
 * Node's built-in modules reach the bundle through `require`, not `import`: an ES module that imports
 * one gets every export read, getters included, and some getters load a lot (`http.WebSocket` Node's
 * whole fetch and WebSocket client, `tls.rootCertificates` every root certificate, `crypto.webcrypto`
 * the Web Crypto API): on Node 24, 14 MB of the agent's memory for nothing it uses. Each
 * built-in the code imports becomes a CommonJS module that requires it; rolldown reads its exports
 * where they are used.
 */
const requireBuiltins: Plugin = {
  name: 'mon:require-builtins',
  resolveId(source, importer) {
    // node:module gives the bundle its `require` (createRequire): imported as it is.
    if (!isBuiltin(source) || source === 'node:module') return null;
    if (importer?.startsWith(BUILTIN)) return { id: source, external: true };
    return { id: `${BUILTIN}${source}`, moduleSideEffects: false };
  },
  load(id) {
    if (!id.startsWith(BUILTIN)) return null;
    return `module.exports = require(${JSON.stringify(id.slice(BUILTIN.length))});`;
  },
};

if (import.meta.main) {
  const built = await buildAgent(process.argv[2]);
  console.log(`mon: agent ${built.version} built into ${built.file} (${Math.round(built.bytes / 1024)} KiB)`);
}
