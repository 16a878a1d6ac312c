import { parse, TomlError } from 'smol-toml';
import type { DeclaredCheck } from '../protocol/agent.ts';
import { formatDuration, parseDuration } from '../protocol/durations.ts';
import { nameProblem } from '../protocol/text-rules.ts';
import { readFile } from './fs.ts';

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
/** The most problems a declaration carries (declareFrameSchema). */
const MAX_PROBLEMS = 100;

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

/** Reads and checks the file; a missing file is an empty one (a host without command checks). */
export async function readChecksFile(path: string): Promise<ChecksFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { checks: [], problems: [] };
    return {
      checks: [],
      problems: [anyHost(`${path}: cannot be read (${code ?? (error as Error).message})`)],
    };
  }
  return parseChecksFile(text);
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
 * What this host declares: the checks whose `from` names it, and the problems of its tables and of the
 * file as a whole. Tables of other hosts are theirs: neither run nor reported here.
 */
export function declarationOf(
  file: ChecksFile,
  host: string,
): { checks: DeclaredCheck[]; problems: string[] } {
  return {
    checks: file.checks
      .filter((check) => check.from === host)
      .map(({ name, service, command, everyMs, timeoutMs }) => ({
        name,
        service,
        command,
        everyMs,
        timeoutMs,
      })),
    problems: capped(
      file.problems.filter((problem) => problem.from === null || problem.from === host).map((p) => p.text),
    ),
  };
}

function anyHost(text: string): { from: null; text: string } {
  return { from: null, text };
}

function capped(problems: string[]): string[] {
  if (problems.length <= MAX_PROBLEMS) return problems;
  return [...problems.slice(0, MAX_PROBLEMS - 1), `and ${problems.length - MAX_PROBLEMS + 1} more problems`];
}
