import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromiumPath } from './harness.ts';

export type ChromiumProcess = {
  profile: string;
  /** Whether a process of the browser is still there. */
  running(): boolean;
  close(): Promise<void>;
};

/**
 * Debian's Chromium as people run it (`--headless=new`, no automation), not through Playwright, with a
 * profile of its own. It runs in a process group of its own: `close()` kills the group (the launcher
 * script, the browser and every zygote, renderer, GPU and network process, which write to the profile
 * until they die), waits until none is left, then removes the profile, retrying while a file the last
 * of them wrote is still being let go of.
 */
export function spawnChromium(args: string[]): ChromiumProcess {
  const profile = mkdtempSync(join(tmpdir(), 'mon-chromium-'));
  const child = spawn(
    chromiumPath,
    [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      `--user-data-dir=${profile}`,
      ...args,
    ],
    { stdio: 'ignore', detached: true },
  );
  const group = child.pid;
  const alive = () => {
    try {
      process.kill(-group!, 0);
      return true;
    } catch {
      return false;
    }
  };
  return {
    profile,
    running: alive,
    async close() {
      if (group !== undefined && alive()) {
        process.kill(-group, 'SIGKILL');
        // Killed processes are gone once reaped; a few seconds at most even on a loaded machine.
        for (let i = 0; i < 100 && alive(); i++) await sleep(50);
      }
      await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}
