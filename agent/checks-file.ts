import { constants, type Stats } from 'node:fs';
import { parse, TomlError } from 'smol-toml';
import type { DeclaredCheck } from '../protocol/agent.ts';
import { MAX_DECLARED_CHECKS, MAX_DECLARED_PROBLEMS } from '../protocol/agent-constants.ts';
import { formatDuration, parseDuration } from '../protocol/durations.ts';
import { nameProblem } from '../protocol/text-rules.ts';
import { close, fstat, open, read } from './fs.ts';

/**
 * The host's checks.toml (docs/agent.md): command checks, each a `[[check]]` table with `name`,
 * `service`, `command`, `from` (the host that runs it), `every` (default 1m, at least 10s) and `timeout`
 * (default 10s, at most `every`). Read once when the agent starts. A table that cannot be used is
 * left out and described in `problems` (sent with the declaration, shown on the host page); the agent
 * never stops for it.
 */
export type ChecksFile = {
  /** Every usable check, with the host it names in `from`. */
  checks: (DeclaredCheck & { from: string })[];
  /** What could not be used, with the host the table names when it could be read (null: any host's). */
  problems: { from: string | null; text: string }[];
};

const DEFAULT_EVERY_MS = 60_000;
const DEFAULT_TIMEOUT_MS = 10_000;
const MIN_EVERY_MS = 10_000;
const MAX_EVERY_MS = 7 * 86_400_000;
const MIN_TIMEOUT_MS = 100;
const MAX_TIMEOUT_MS = 120_000;
/** The largest checks file read: a bigger one is refused whole (it would be held in memory). */
export const MAX_CHECKS_FILE_BYTES = 1024 * 1024;

const DURATION_WORDS = 'must be a duration such as "30s", "5m" or "1h"';

/**
 * Why the value of each field of a `[[check]]` table cannot be used, or null; in the order problems are
 * told. Checked by hand, without the schema library, which the agent does not load (it would cost a
 * third of the agent's memory); names follow the same rules as everywhere in mon (text-rules.ts).
 */
const fieldRules: Record<string, (value: unknown) => string | null> = {
  name: nameRule,
  service: nameRule,
  command: (value) => {
    if (value === undefined) return 'required';
    if (typeof value !== 'string') return 'must be a string';
    const command = value.trim();
    if (command === '') return 'must not be empty';
    return command.length > 4096 ? 'must be at most 4096 characters' : null;
  },
  from: nameRule,
  every: durationRule(MIN_EVERY_MS, MAX_EVERY_MS),
  timeout: durationRule(MIN_TIMEOUT_MS, MAX_TIMEOUT_MS),
};

function nameRule(value: unknown): string | null {
  if (value === undefined) return 'required';
  return typeof value === 'string' ? nameProblem(value.trim()) : 'must be a name (text)';
}

function durationRule(min: number, max: number) {
  return (value: unknown): string | null => {
    if (value === undefined) return null;
    const ms = typeof value === 'string' ? parseDuration(value) : null;
    if (ms === null) return DURATION_WORDS;
    if (ms < min) return `must be at least ${formatDuration(min)}`;
    return ms > max ? `must be at most ${formatDuration(max)}` : null;
  };
}

/** The first problem of a table, as told after its place (` every: must be…`, `: must be a table`), or null. */
function tableProblem(table: unknown): string | null {
  if (typeof table !== 'object' || table === null || Array.isArray(table)) return ': must be a table';
  const fields = table as Record<string, unknown>;
  for (const [field, rule] of Object.entries(fieldRules)) {
    const problem = rule(fields[field]);
    if (problem) return ` ${field}: ${problem}`;
  }
  const unknown = Object.keys(fields).find((key) => !Object.hasOwn(fieldRules, key));
  return unknown === undefined ? null : ` ${unknown}: unknown field`;
}

/**
 * Reads and checks the file; a missing file is an empty one (a host without command checks). Only a
 * regular file of at most 1 MiB is read: anything else is one problem, and the agent starts without
 * command checks rather than wait on a FIFO or hold a huge file in memory.
 */
export async function readChecksFile(path: string): Promise<ChecksFile> {
  const refused = (why: string): ChecksFile => ({ checks: [], problems: [anyHost(`${path}: ${why}`)] });
  let fd: number;
  try {
    // Non-blocking: opening a FIFO without a writer would wait for one, and the agent's start with it.
    fd = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = codeOf(error);
    return code === 'ENOENT' ? { checks: [], problems: [] } : refused(`cannot be read (${code})`);
  }
  try {
    const stats = await fstat(fd);
    if (!stats.isFile()) return refused(`not read: ${kindOf(stats)}, not a regular file`);
    const tooBig = (size: number) =>
      refused(
        `not read: ${size} bytes, more than the 1 MiB (${MAX_CHECKS_FILE_BYTES} bytes) a checks file may have`,
      );
    if (stats.size > MAX_CHECKS_FILE_BYTES) return tooBig(stats.size);
    // Read in parts up to the limit: the file may grow after fstat.
    const parts: Buffer[] = [];
    let size = 0;
    for (;;) {
      const part = Buffer.allocUnsafe(64 * 1024);
      const { bytesRead } = await read(fd, part, 0, part.length, null);
      if (bytesRead === 0) break;
      parts.push(part.subarray(0, bytesRead));
      size += bytesRead;
      if (size > MAX_CHECKS_FILE_BYTES) return tooBig(size);
    }
    return parseChecksFile(Buffer.concat(parts, size).toString('utf8'));
  } catch (error) {
    return refused(`cannot be read (${codeOf(error)})`);
  } finally {
    await close(fd).catch(() => {});
  }
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  return stats.isBlockDevice() ? 'a block device' : 'something else';
}

export function parseChecksFile(text: string): ChecksFile {
  let tree: Record<string, unknown>;
  try {
    tree = parse(text);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const message = error.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
    return { checks: [], problems: [anyHost(`line ${error.line}, column ${error.column}: ${message}`)] };
  }
  const problems: ChecksFile['problems'] = [];
  for (const key of Object.keys(tree)) {
    if (key !== 'check')
      problems.push(anyHost(`${key}: unknown table (checks.toml has [[check]] tables only)`));
  }
  const tables = tree.check ?? [];
  if (!Array.isArray(tables)) {
    problems.push(anyHost('check: must be [[check]] tables'));
    return { checks: [], problems };
  }
  const checks: ChecksFile['checks'] = [];
  const seen = new Set<string>();
  tables.forEach((table: unknown, index) => {
    const { name: written, from: host } = (table ?? {}) as { name?: unknown; from?: unknown };
    const where = `check[${index}]${typeof written === 'string' ? ` (${written})` : ''}`;
    const problem = (text: string) =>
      problems.push({ from: typeof host === 'string' ? host.trim() : null, text: text.slice(0, 1000) });
    const problemText = tableProblem(table);
    if (problemText) {
      problem(`${where}${problemText}`);
      return;
    }
    // Every field checked: the names and the command are strings, the durations absent or valid.
    const fields = table as Record<string, string | undefined>;
    const field = (key: string) => fields[key]!.trim();
    const [name, service, command, from] = [field('name'), field('service'), field('command'), field('from')];
    const everyMs = fields.every === undefined ? DEFAULT_EVERY_MS : parseDuration(fields.every)!;
    const timeoutMs =
      fields.timeout === undefined ? Math.min(DEFAULT_TIMEOUT_MS, everyMs) : parseDuration(fields.timeout)!;
    if (timeoutMs > everyMs) {
      problem(`${where} timeout: must be at most every (${formatDuration(everyMs)})`);
      return;
    }
    // A name names one check of a host: a second table of the same name for the same host is left out.
    const key = `${from}\n${name}`;
    if (seen.has(key)) {
      problem(`${where}: another check of ${from} is named ${name}`);
      return;
    }
    seen.add(key);
    checks.push({ name, service, command, everyMs, timeoutMs, from });
  });
  return { checks, problems };
}

/**
 * What this host declares: the first 1000 checks whose `from` names it, and the problems of its tables
 * and of the file as a whole. Tables of other hosts are theirs: neither run nor reported here, except
 * those whose `from` differs from this host's name in case only (names are case-sensitive in mon,
 * so that is most likely a slip).
 */
export function declarationOf(
  file: ChecksFile,
  host: string,
): { checks: DeclaredCheck[]; problems: string[] } {
  const mine = file.checks.filter((check) => check.from === host);
  const problems: string[] = [];
  if (mine.length > MAX_DECLARED_CHECKS) {
    problems.push(
      `${mine.length} command checks are for ${host}: only the first ${MAX_DECLARED_CHECKS} command checks are used`,
    );
  }
  const slips = new Map<string, string[]>();
  for (const check of file.checks) {
    if (check.from === host || check.from.toLowerCase() !== host.toLowerCase()) continue;
    slips.set(check.from, [...(slips.get(check.from) ?? []), check.name]);
  }
  for (const [from, names] of slips) {
    problems.push(
      `from = "${from}" is not this host's name ${host} (names are case-sensitive): ${plural(names.length, 'check')} not declared (${listed(names)})`,
    );
  }
  for (const problem of file.problems) {
    if (problem.from === null || problem.from === host) problems.push(problem.text);
  }
  return {
    checks: mine.slice(0, MAX_DECLARED_CHECKS).map(({ name, service, command, everyMs, timeoutMs }) => ({
      name,
      service,
      command,
      everyMs,
      timeoutMs,
    })),
    problems: capped(problems.map((text) => text.slice(0, 1000))),
  };
}

/** How many checks of the file are this host's and whose the others are, for the agent's log. */
export function checksSummary(file: ChecksFile, host: string): string {
  const others = file.checks.filter((check) => check.from !== host);
  const mine = `${plural(file.checks.length - others.length, 'command check')} for ${host}`;
  if (others.length === 0) return mine;
  return `${mine} (${others.length} for other hosts: ${listed([...new Set(others.map((c) => c.from))])})`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The first ten names, then how many more. */
function listed(names: string[]): string {
  const shown = names.slice(0, 10).join(', ');
  return names.length > 10 ? `${shown} and ${names.length - 10} more` : shown;
}

function anyHost(text: string): { from: null; text: string } {
  return { from: null, text };
}

function capped(problems: string[]): string[] {
  if (problems.length <= MAX_DECLARED_PROBLEMS) return problems;
  return [
    ...problems.slice(0, MAX_DECLARED_PROBLEMS - 1),
    `and ${problems.length - MAX_DECLARED_PROBLEMS + 1} more problems`,
  ];
}
