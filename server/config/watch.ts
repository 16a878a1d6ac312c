import { createHash } from 'node:crypto';
import { type FSWatcher, readFileSync, statSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Env } from '../../protocol/env-refs.ts';
import type { Log } from '../log.ts';
import { exportConfig } from './export.ts';
import type { LastGoodText } from './last-good.ts';
import { type Loaded, loadConfigText } from './load.ts';
import {
  type ConfigInForce,
  type ConfigProviders,
  type ConfigService,
  emptyConfig,
  type LiveConfig,
} from './service.ts';

export type FileConfigOptions = ConfigProviders & {
  path: string;
  env: Env;
  log: Log;
  /** Backstop poll of the file's mtime, size and inode (fs.watch can miss events). Default 500 ms. */
  pollMs?: number;
  /** Quiet time after a change event before reading, so a save in several writes is read once. */
  debounceMs?: number;
  /** false: only the stat poll (tests of the backstop). */
  fsWatch?: boolean;
  /** Called after each read of a changed file, accepted or rejected (the live stream tells the panel). */
  onStatus?: () => void;
  /** Where the text of the last file that loaded is kept, for a start with a bad file. */
  lastGood?: LastGoodText;
};

/**
 * How long a changed file must stay the same (size, mtime, inode and text) before it is applied.
 * Editors that save by emptying the file and then writing it, and `>` in a shell, leave it empty or
 * cut for a moment: that moment is never applied. With the poll, a save still applies within 2 s.
 */
const SETTLE_MS = 500;

/**
 * The mon.toml config service: loads the file at start and again within about a second of each save
 * (fs.watch on the directory catches writes and rename-saves; a stat poll is the backstop), once the
 * saved file has stayed the same for SETTLE_MS. A file is parsed, validated and checked for
 * collisions as a whole and only then swapped in; a bad file changes nothing and its error is shown by
 * `error()`. A missing file is an empty configuration. The text of each file that loads is kept
 * (`lastGood`): a bad (or unreadable) file at start runs on that text, the last good configuration, as
 * after a rejected save, with the error shown; on an empty configuration only when none loads.
 */
export function createFileConfig(options: FileConfigOptions): ConfigService {
  const { path, env, log } = options;
  let loaded: Loaded = { config: emptyConfig(), references: new Map() };
  let error: string | null = null;
  let inForce: ConfigInForce = 'file';
  let lastHash: string | null = null;
  let lastStat = '';
  const listeners = new Set<(config: LiveConfig) => void>();
  let closed = false;

  /** A changed file seen but not yet applied: applied once unchanged for SETTLE_MS. */
  let pending: { signature: string; hash: string; since: number } | null = null;
  let timer: NodeJS.Timeout | undefined;
  const later = (ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => check(false), ms);
  };

  const check = (force: boolean) => {
    if (closed) return;
    const signature = statSignature(path);
    lastStat = signature;
    let text: string | null;
    try {
      text = readText(path);
    } catch (e) {
      error = `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`;
      log.error('config file unreadable', { path, error });
      if (lastHash === null) startOnLastGood();
      else if (inForce === 'file') inForce = 'lastGood';
      return;
    }
    const hash = text === null ? 'missing' : createHash('sha256').update(text).digest('hex');
    if (hash === lastHash && !(force && error !== null)) {
      pending = null;
      return;
    }
    if (!force && lastHash !== null) {
      const now = Date.now();
      if (pending?.signature !== signature || pending.hash !== hash) {
        pending = { signature, hash, since: now };
      }
      if (now - pending.since < SETTLE_MS) return later(pending.since + SETTLE_MS - now);
    }
    pending = null;
    const first = lastHash === null;
    lastHash = hash;
    const result = load(text ?? '');
    if (!result.ok) {
      error = result.error;
      options.onStatus?.();
      if (first) startOnLastGood();
      else if (inForce === 'file') inForce = 'lastGood';
      log.error(
        first
          ? `config file rejected at start; running with ${inForce === 'lastGood' ? 'the last good' : 'an empty'} configuration`
          : 'config file rejected; keeping the last good configuration',
        {
          path,
          error: result.error,
        },
      );
      return;
    }
    loaded = { config: result.config, references: result.references };
    error = null;
    inForce = 'file';
    options.lastGood?.save(text ?? '');
    const c = result.config;
    log.info(
      text === null
        ? 'config file missing; empty configuration'
        : first
          ? 'config loaded'
          : 'config reloaded',
      {
        path,
        services: c.services.length,
        hosts: c.hosts.length,
        checks: c.checks.length,
        alerts: c.alerts.length,
      },
    );
    if (first) return;
    options.onStatus?.();
    for (const listener of listeners) {
      try {
        listener(c);
      } catch (e) {
        log.error('config listener failed', { error: String(e) });
      }
    }
  };

  function load(text: string): ReturnType<typeof loadConfigText> {
    try {
      return loadConfigText(text, { env, ...(options.names ? { names: options.names } : {}) });
    } catch (e) {
      return { ok: false, error: `cannot load: ${(e as Error).message}` };
    }
  }

  /**
   * The file is bad at start: the last text that loaded is in force, if it still loads. Once only:
   * later reads of a file still bad change nothing that is in force.
   */
  let startedOnLastGood = false;
  function startOnLastGood(): void {
    if (startedOnLastGood) return;
    startedOnLastGood = true;
    inForce = 'empty';
    const text = options.lastGood?.read() ?? null;
    if (text === null) return;
    const result = load(text);
    if (!result.ok) {
      // Its environment or the panel's names changed since; its error, not its text, is logged.
      log.error('the last good config no longer loads; running with an empty configuration', {
        error: result.error,
      });
      return;
    }
    loaded = { config: result.config, references: result.references };
    inForce = 'lastGood';
  }

  check(false);

  const soon = () => later(options.debounceMs ?? 100);
  let watcher: FSWatcher | undefined;
  try {
    if (options.fsWatch === false) throw new Error('fs.watch off');
    watcher = watch(dirname(path), (_event, name) => {
      if (name === null || name === basename(path)) soon();
    });
    watcher.on('error', () => {
      // The directory went away or cannot be watched: the poll below still sees the file.
      watcher?.close();
      watcher = undefined;
    });
  } catch {
    watcher = undefined;
  }
  const poll = setInterval(() => {
    if (statSignature(path) !== lastStat) soon();
  }, options.pollMs ?? 500);
  poll.unref();

  return {
    current: () => loaded.config,
    error: () => error,
    inForce: () => inForce,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reload: () => check(true),
    export: () =>
      exportConfig(
        loaded.config,
        loaded.references,
        options.storedChecks?.() ?? [],
        options.storedChannels?.() ?? [],
        options.storedHosts?.() ?? [],
      ),
    close() {
      closed = true;
      clearTimeout(timer);
      clearInterval(poll);
      watcher?.close();
    },
  };
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function statSignature(path: string): string {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    return 'missing';
  }
}
