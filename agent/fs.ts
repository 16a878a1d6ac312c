import fs from 'node:fs';
import { promisify } from 'node:util';

/**
 * The file functions the agent waits on, as promises of Node's callback API: node:fs/promises is not
 * loaded (with what it pulls in, readline and the file watchers, about 1 MB of the agent's memory).
 * They run on libuv's thread pool, off the agent's thread: the spool's writes and syncs can be slow on
 * a busy disk, and statfs on a stale mount never returns. Small files the kernel makes on read (under
 * /proc and /sys) are read at once instead (collectors/files.ts).
 */
export const chmod = promisify(fs.chmod);
export const close = promisify(fs.close);
export const fstat = promisify(fs.fstat);
export const fsync = promisify(fs.fsync);
export const link = promisify(fs.link);
export const mkdir = promisify(fs.mkdir);
export const open = promisify(fs.open);
export const read = promisify(fs.read);
export const readdir = promisify(fs.readdir);
export const readFile = promisify(fs.readFile);
export const rename = promisify(fs.rename);
export const rm = promisify(fs.rm);
export const stat = promisify(fs.stat);
export const statfs = promisify(fs.statfs);
export const unlink = promisify(fs.unlink);
export const writeFile = promisify(fs.writeFile);
