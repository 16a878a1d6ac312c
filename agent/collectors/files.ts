import { accessSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Reading the host's files. Every collector reads through these, and each answers null (or an empty
 * list) for a file that is missing or unreadable: a host without hwmon, a kernel without a file, a
 * root that was not mounted. A collector turns that into null for its part of the sample.
 *
 * The files are small and the kernel makes them on read (`/proc`, `/sys`): they are read at once, on
 * the agent's thread, which costs less than a trip through libuv's thread pool for each. The functions
 * stay async so that a collector reads the same way whatever it reads.
 */

/** The file's text, or null when it cannot be read. */
export async function readText(path: string): Promise<string | null> {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Whether the path exists (a symbolic link counts when what it points to exists). */
export async function exists(path: string): Promise<boolean> {
  try {
    accessSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Where a symbolic link points, as written in the link; null when the path is not a link. */
export async function linkTarget(path: string): Promise<string | null> {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

/** The names in a directory, or an empty list when it cannot be read. */
export async function namesIn(path: string): Promise<string[]> {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** Rounds to `digits` decimals (percentages to 2, rates to whole bytes). */
export const roundTo = (value: number, digits: number) => {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
};
