import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { AGENT_FILE, agentFileStale, agentFileVersion, buildAgent } from '../../agent/build.ts';
import type { Deps } from '../deps.ts';
import { unavailable } from '../problem.ts';

/**
 * `GET /agent/v1/agent.mjs`: the agent as one self-contained file (agent/build.ts), which the install
 * commands fetch. Anyone may fetch it: it holds no secret. Built by `npm install`; when the file is
 * missing, or older than the sources it was built from, the first request for it builds it (later ones
 * wait for that build); reading its version for the host reads builds nothing. A build that failed is not
 * tried again for a minute: meanwhile requests get 503 at once, so that anyone's GETs cannot keep the
 * server building. Kept in memory, read again when the file changes; an ETag lets a host skip a
 * download it has. Its version (the build's, agent/build.ts) is what the host reads compare each
 * agent's with (`servedVersion`).
 */
/** How long a failed build is remembered before a request may start another. */
const BUILD_RETRY_MS = 60_000;

export function registerAgentFile(
  app: FastifyInstance,
  deps: Deps,
  options: {
    file?: string;
    build?: (file: string) => Promise<unknown>;
    stale?: (file: string) => Promise<boolean>;
  } = {},
): AgentFile {
  const file = options.file ?? AGENT_FILE;
  const build = options.build ?? buildAgent;
  let kept: {
    mtimeMs: number;
    size: number;
    body: Buffer;
    etag: string;
    version: string | null;
  } | null = null;
  let building: Promise<unknown> | null = null;
  let failedAt: number | null = null;
  // Once per process: a file older than its sources (the code was updated without `npm install`) is
  // built again; where it cannot be (no dev dependencies), the file there is served, and that is logged.
  let refreshed: Promise<void> | null = null;
  const refresh = async () => {
    if (!(await (options.stale ?? agentFileStale)(file))) return;
    if (!(await stat(file).catch(() => null))) return;
    try {
      await build(file);
      deps.log.info('the agent file was older than its sources: built again', { file });
    } catch (error) {
      deps.log.warn(
        'the agent file is older than its sources and cannot be built here; serving it as it is',
        {
          file,
          error: String(error),
        },
      );
    }
  };
  const cannotBuild = (retryAfterS: number) =>
    unavailable(
      retryAfterS,
      'the agent file is not built and cannot be built here: run npm install (with dev dependencies) on the server',
    );

  /**
   * The file as it is now. For a download (`build`), built first when it is missing or older than its
   * sources; for a read, as it is (null when missing): reading hosts never builds.
   */
  async function load(build: true): Promise<NonNullable<typeof kept>>;
  async function load(build: false): Promise<typeof kept>;
  async function load(buildMissing: boolean) {
    if (buildMissing) {
      refreshed ??= refresh();
      await refreshed;
    }
    let info = await stat(file).catch(() => null);
    if (!info && !buildMissing) return null;
    if (!info) {
      const since = failedAt === null ? null : deps.clock.now() - failedAt;
      if (since !== null && since < BUILD_RETRY_MS)
        throw cannotBuild(Math.ceil((BUILD_RETRY_MS - since) / 1000));
      building ??= build(file).finally(() => {
        building = null;
      });
      try {
        await building;
        info = await stat(file);
        failedAt = null;
      } catch (error) {
        // Requests that waited for the same build share its failure, logged once.
        if (failedAt === null || deps.clock.now() - failedAt >= BUILD_RETRY_MS) {
          failedAt = deps.clock.now();
          deps.log.error('cannot build the agent file', { file, error: String(error) });
        }
        throw cannotBuild(BUILD_RETRY_MS / 1000);
      }
    }
    if (!kept || kept.mtimeMs !== info.mtimeMs || kept.size !== info.size) {
      const body = await readFile(file);
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
      const version = agentFileVersion(body.subarray(0, 256).toString('latin1'));
      kept = { mtimeMs: info.mtimeMs, size: info.size, body, etag, version };
    }
    return kept;
  }

  app.get('/agent/v1/agent.mjs', async (request, reply) => {
    const agent = await load(true);
    reply.header('etag', agent.etag).header('cache-control', 'no-cache');
    const tags = (request.headers['if-none-match'] ?? '').split(',').map((tag) => tag.trim());
    if (tags.includes(agent.etag) || tags.includes('*')) return reply.code(304).send();
    return reply.type('text/javascript; charset=utf-8').send(agent.body);
  });

  return {
    async servedVersion() {
      // A read builds nothing, neither a missing file nor a stale one (the first download does): the
      // version is that of the file there.
      try {
        return (await load(false))?.version ?? null;
      } catch {
        return null;
      }
    },
  };
}

export type AgentFile = {
  /**
   * The version of the agent file served now (`0.1.0+3f9a1c2b7d4e`), or null when it is not built yet
   * or names none with a hash (built before mon gave its builds one).
   */
  servedVersion(): Promise<string | null>;
};
