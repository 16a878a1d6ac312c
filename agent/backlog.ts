import type { AgentLog } from './log.ts';
import type { Spool } from './spool.ts';

/**
 * The batches waiting for the server: the spool, and in memory those the spool could not take (a full
 * disk, a state directory gone read-only). A host whose disk fills must not go silent just when its
 * disk alert matters: a batch the spool refuses is kept in memory, bounded (MEMORY_MAX_BYTES and
 * MEMORY_MAX_FILES, the oldest dropped first, as the spool does) and sent from there. Once the spool
 * takes a batch again, the ones in memory are written to it first, so every batch in memory is newer
 * than every file of the spool, and sending the spool's first keeps them oldest first.
 *
 * The failure is logged once, when the first batch stays in memory, and its end once, with how many
 * batches were kept and dropped meanwhile.
 */
export type Backlog = Omit<Spool, 'dropped' | 'add'> & {
  /** Adds a body as the newest batch; never rejects. */
  add(body: Buffer): Promise<void>;
};

/** Memory for batches the spool cannot take: about 900 samples of 50 containers and 200 units. */
export const MEMORY_MAX_BYTES = 8 * 1024 * 1024;
export const MEMORY_MAX_FILES = 2000;
/** Names of batches in memory: never a spool file's name (those start with digits). */
const MEMORY_PREFIX = 'memory-';

export function createBacklog(
  spool: Spool,
  log: AgentLog,
  bounds: { maxBytes?: number; maxFiles?: number } = {},
): Backlog {
  const maxBytes = bounds.maxBytes ?? MEMORY_MAX_BYTES;
  const maxFiles = bounds.maxFiles ?? MEMORY_MAX_FILES;
  const memory: { name: string; body: Buffer }[] = [];
  let memoryBytes = 0;
  let sequence = 0;
  /** Since the spool last refused a batch: kept in memory, dropped for want of room; null when it works. */
  let refusing: { kept: number; dropped: number; firstDrop: boolean } | null = null;

  const keep = (body: Buffer) => {
    while (memory.length > 0 && (memory.length + 1 > maxFiles || memoryBytes + body.length > maxBytes)) {
      memoryBytes -= memory.shift()!.body.length;
      if (refusing) refusing.dropped++;
    }
    if (refusing && refusing.dropped > 0 && refusing.firstDrop) {
      refusing.firstDrop = false;
      log.warn(
        `the batches kept in memory fill ${maxBytes / 1024 / 1024} MiB: dropping the oldest until the spool takes batches again`,
      );
    }
    memory.push({ name: `${MEMORY_PREFIX}${sequence++}`, body });
    memoryBytes += body.length;
    if (refusing) refusing.kept++;
  };

  const drop = (name: string) => {
    const index = memory.findIndex((batch) => batch.name === name);
    if (index < 0) return false;
    memoryBytes -= memory[index]!.body.length;
    memory.splice(index, 1);
    return true;
  };

  return {
    async add(body) {
      // The spool's order is kept: what waits in memory goes in first.
      while (memory.length > 0) {
        try {
          await spool.add(memory[0]!.body);
        } catch {
          keep(body);
          return;
        }
        memoryBytes -= memory.shift()!.body.length;
      }
      try {
        await spool.add(body);
      } catch (error) {
        if (!refusing) {
          refusing = { kept: 0, dropped: 0, firstDrop: true };
          log.error(
            `cannot write to the spool (${messageOf(error)}): keeping batches in memory (at most ${maxBytes / 1024 / 1024} MiB) and sending them from there`,
          );
        }
        keep(body);
        return;
      }
      if (refusing) {
        const { kept, dropped } = refusing;
        refusing = null;
        log.info(
          `the spool takes batches again (${kept} batch(es) were kept in memory meanwhile${dropped > 0 ? `, ${dropped} of them dropped for want of room` : ''})`,
        );
      }
    },
    async oldest() {
      // A file the spool can neither read nor delete (its directory gone) throws, forgotten: the next.
      for (let files = spool.size().files; files >= 0; files--) {
        try {
          return (await spool.oldest()) ?? memory[0] ?? null;
        } catch {}
      }
      return memory[0] ?? null;
    },
    async after(name) {
      if (!name.startsWith(MEMORY_PREFIX)) return (await spool.after(name)) ?? memory[0] ?? null;
      const index = memory.findIndex((batch) => batch.name === name);
      return index < 0 ? null : (memory[index + 1] ?? null);
    },
    async remove(name) {
      if (drop(name)) return;
      try {
        await spool.remove(name);
      } catch {
        // Forgotten by the spool all the same; a file left behind is sent again at the next start,
        // and the server knows its batch id: it stores nothing twice.
      }
    },
    async setAside(name) {
      // A batch in memory has no file to set aside: the caller drops it (see outbox.ts).
      if (name.startsWith(MEMORY_PREFIX)) throw new Error('a batch kept in memory');
      await spool.setAside(name);
    },
    size() {
      const { files, bytes } = spool.size();
      return { files: files + memory.length, bytes: bytes + memoryBytes };
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
