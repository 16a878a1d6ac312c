/**
 * First step of `npm test`: the Debian packages whose programs the tests run.
 * All installed: exits 0 at once, silently. Some missing: as root with apt-get, installs them; otherwise
 * stops with the one command that installs them.
 *
 *   node test/preflight.ts                      the tests' packages (below)
 *   node test/preflight.ts package[:binary] …   these packages instead (used by its own test)
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export type Need = { readonly package: string; readonly binary: string; readonly why: string };

/** The one list of Debian packages the tests need. */
export const testPackages: readonly Need[] = [
  { package: 'dnsmasq-base', binary: 'dnsmasq', why: 'a real DNS server for DNS checks' },
  { package: 'iputils-ping', binary: 'ping', why: 'ping checks' },
  { package: 'openssl', binary: 'openssl', why: 'throwaway TLS certificates' },
  { package: 'prometheus', binary: 'promtool', why: 'lints the /metrics text' },
  { package: 'chromium', binary: 'chromium', why: "the panel's browser tests" },
];

export type Machine = { readonly root: boolean; readonly apt: boolean };

export type Plan =
  | { readonly action: 'none' }
  | { readonly action: 'install'; readonly notice: string; readonly commands: readonly (readonly string[])[] }
  | { readonly action: 'stop'; readonly message: string };

/** Wait for a dpkg or apt lock held by another install instead of failing at once. */
const lockWait = ['-o', 'DPkg::Lock::Timeout=600'];

/** What to do about the missing packages on this machine. */
export function plan(missing: readonly Need[], machine: Machine): Plan {
  if (missing.length === 0) return { action: 'none' };
  const names = missing.map((n) => n.package);
  const programs = missing.map((n) => `${n.binary} (${n.why})`).join(', ');
  if (machine.root && machine.apt) {
    return {
      action: 'install',
      notice: `npm test: installing ${names.join(' ')} with apt-get; the tests run ${programs}`,
      commands: [
        ['apt-get', 'update', '-qq', ...lockWait],
        ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...lockWait, ...names],
      ],
    };
  }
  const command = `${machine.root ? '' : 'sudo '}apt-get install -y --no-install-recommends ${names.join(' ')}`;
  const elsewhere = machine.apt ? '' : '\n(Debian package names: elsewhere, install the same programs.)';
  return {
    action: 'stop',
    message: `npm test needs ${programs}. Install them with:\n\n  ${command}\n${elsewhere}`,
  };
}

function onPath(binary: string): boolean {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin'];
  return dirs.some((dir) => {
    try {
      accessSync(join(dir, binary), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Installed packages among `names` as dpkg knows them, or null where there is no dpkg. */
function dpkgInstalled(names: readonly string[]): Set<string> | null {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format fields
  const query = spawnSync('dpkg-query', ['-W', '-f', '${Package}\\t${db:Status-Abbrev}\\n', ...names], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  if (query.error) return null;
  const installed = query.stdout
    .split('\n')
    .map((line) => line.split('\t'))
    .filter(([, status]) => status?.startsWith('ii'))
    .map(([name]) => name!);
  return new Set(installed);
}

/** The needs not installed: by dpkg on Debian, else by their program on the PATH. */
export function missingOf(needs: readonly Need[]): Need[] {
  const installed = dpkgInstalled(needs.map((n) => n.package));
  return needs.filter((n) => (installed ? !installed.has(n.package) : !onPath(n.binary)));
}

export function main(needs: readonly Need[]): number {
  const missing = missingOf(needs);
  const decided = plan(missing, { root: process.getuid?.() === 0, apt: onPath('apt-get') });
  if (decided.action === 'none') return 0;
  if (decided.action === 'stop') {
    console.error(decided.message);
    return 1;
  }
  console.log(decided.notice);
  for (const [command, ...args] of decided.commands) {
    const run = spawnSync(command!, args, {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (run.status !== 0) {
      const why = run.error?.message ?? `exit ${run.status ?? run.signal}`;
      console.error(
        `${[command, ...args].join(' ')} failed (${why}):\n${run.stdout ?? ''}${run.stderr ?? ''}`,
      );
      return 1;
    }
  }
  const still = missingOf(missing);
  if (still.length > 0) {
    console.error(`still not installed after apt-get: ${still.map((n) => n.package).join(' ')}`);
    return 1;
  }
  return 0;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const needs =
    args.length === 0
      ? testPackages
      : args.map((arg) => {
          const [name, binary] = arg.split(':');
          return { package: name!, binary: binary ?? name!, why: 'asked for' };
        });
  process.exitCode = main(needs);
}
