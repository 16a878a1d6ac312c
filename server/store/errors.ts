/** SQLite result codes that mean "storage cannot take this write now", not "this write is wrong". */
const storageCodes = new Set([
  5, // SQLITE_BUSY: another connection holds the lock
  6, // SQLITE_LOCKED
  7, // SQLITE_NOMEM
  8, // SQLITE_READONLY: file or directory no longer writable
  10, // SQLITE_IOERR
  13, // SQLITE_FULL: disk full
  14, // SQLITE_CANTOPEN
  15, // SQLITE_PROTOCOL
]);

/** True for a node:sqlite error whose primary result code is a storage condition (answered 503). */
export function isStorageError(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown };
  return (
    e?.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number' && storageCodes.has(e.errcode & 0xff)
  );
}
