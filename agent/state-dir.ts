import { readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { link, readdir, readFile, rename, rm, writeFile } from './fs.ts';
import type { AgentLog } from './log.ts';

/**
 * The state directory belongs to one running agent, and its spool to one server and host token
 * (docs/agent.md, "The state directory"). Two agents on one directory would send each other's batches
 * under the wrong host; an agent whose MON_SERVER or MON_TOKEN changed would send the old server's
 * batches to the new one.
 */

/** The lock: the running agent's pid and its start time (from /proc), written by the one that holds it. */
export const LOCK_FILE = 'agent.pid';
/** Beside the spool: a fingerprint of the server's address and the token the spool's batches are for. */
export const OWNER_FILE = 'spool.owner';
/** Where a spool of another server or token goes, not sent (an earlier one there is replaced). */
export const PREVIOUS_SPOOL = 'spool-previous';

export class StateDirLocked extends Error {
  override name = 'StateDirLocked';
}

/**
 * Holds the state directory while the agent runs, as the server holds its data directory
 * (server/store/lock.ts), and like it leaves no stale lock behind when the process dies (kill -9, a
 * crash, a power cut): the file names the holder by pid and start time, and a holder whose process is
 * not running with that start time is gone, so its file is taken over. Not the server's SQLite lock:
 * node:sqlite is not in Node 20, which the agent runs on; nor a listening unix socket, which loads
 * node:cluster and node:child_process (about 0.8 MB) on a host that would not load them.
 *
 * Pids are those of the agent's PID namespace: two agents in containers of separate namespaces that
 * share one volume are not told apart (the Docker install runs with `--pid host`).
 */
export async function holdStateDir(stateDir: string, log: AgentLog): Promise<{ release(): void }> {
  const path = join(stateDir, LOCK_FILE);
  const mine = `${process.pid} ${startTimeOf(process.pid)}\n`;
  // Written whole beside it, then linked in place: link fails when the lock exists, and a reader never
  // sees a half-written file (an empty one would look like a dead holder's and be taken over).
  const draft = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  await writeFile(draft, mine, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await link(draft, path).catch((error: NodeJS.ErrnoException) => {
          // A filesystem without hard links: the exclusive create, whose file a reader may see empty.
          if (error.code !== 'EPERM' && error.code !== 'ENOTSUP' && error.code !== 'ENOSYS') throw error;
          return writeFile(path, mine, { flag: 'wx', mode: 0o600 });
        });
        return {
          release() {
            // Only our own: a file another agent took over (after a pause that looked like death) stays.
            if (readHolder(path) === mine) unlinkQuietly(path);
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const held = readHolder(path);
      const [pid, start] = (held ?? '').trim().split(' ');
      if (pid && start && start !== 'null' && startTimeOf(Number(pid)) === start) {
        throw new StateDirLocked(
          `another mon agent (pid ${pid}) is running on the state directory ${stateDir} (MON_STATE_DIR): each agent needs its own`,
        );
      }
      // Its holder is gone: take it over, unless another agent took it over meanwhile (its file differs).
      if (readHolder(path) === held) unlinkQuietly(path);
    }
  } finally {
    unlinkQuietly(draft);
  }
  log.warn(`cannot lock the state directory ${stateDir}: a second agent on it would not be noticed`);
  return { release() {} };
}

/** The start time of a process (clock ticks since boot, /proc/<pid>/stat field 22), or null when it is not running. */
function startTimeOf(pid: number): string | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's name, which may hold spaces and parentheses: state is field 3, start time 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function readHolder(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}

/**
 * Makes `<stateDir>/spool` the spool of this server and token: one of another (its fingerprint in
 * OWNER_FILE differs) is moved to PREVIOUS_SPOOL with one line in the log, never sent. A spool
 * without the file (from an agent before it) is taken as this one's.
 */
export async function claimSpool(stateDir: string, server: URL, token: string, log: AgentLog): Promise<void> {
  const ownerFile = join(stateDir, OWNER_FILE);
  const spoolDir = join(stateDir, 'spool');
  const mine = fingerprint(`${server.href}\n${token}`);
  const owner = await readFile(ownerFile, 'utf8').then(
    (text) => text.trim(),
    () => null,
  );
  if (owner === mine) return;
  if (owner !== null) {
    const files = await readdir(spoolDir).then(
      (names) => names.filter((name) => /^\d{15}-\d{6}\.json\.gz$/.test(name)).length,
      () => 0,
    );
    if (files > 0) {
      const previous = join(stateDir, PREVIOUS_SPOOL);
      await rm(previous, { recursive: true, force: true });
      await rename(spoolDir, previous);
      log.warn(
        `the spool held ${files} batch(es) for another server or host token (MON_SERVER or MON_TOKEN changed, or another agent used ${stateDir}): moved to ${previous}, not sent`,
      );
    }
  }
  const temp = `${ownerFile}.new`;
  await writeFile(temp, `${mine}\n`, { mode: 0o600 });
  await rename(temp, ownerFile);
}

/**
 * FNV-1a, 64 bits: not node:crypto, which costs the agent 2 MB of memory. The token has over 120 bits
 * of randomness, so 64 bits of a hash of it on disk say nothing usable about it.
 */
export function fingerprint(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}
