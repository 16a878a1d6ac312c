import { readFile } from 'node:fs/promises';
import { parse, TomlError } from 'smol-toml';
import { z } from 'zod';
import type { DeclaredCheck } from '../protocol/agent.ts';
import { formatDuration, parseDuration } from '../protocol/durations.ts';
import { fieldIssue } from '../protocol/messages.ts';
import { nameSchema } from '../protocol/text.ts';

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

const duration = (min: number, max: number) =>
  z.string({ error: 'must be a duration such as "30s", "5m" or "1h"' }).transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === null)
      ctx.addIssue({ code: 'custom', message: 'must be a duration such as "30s", "5m" or "1h"' });
    else if (ms < min) ctx.addIssue({ code: 'custom', message: `must be at least ${formatDuration(min)}` });
    else if (ms > max) ctx.addIssue({ code: 'custom', message: `must be at most ${formatDuration(max)}` });
    return ms ?? 0;
  });

const checkTableSchema = z.strictObject({
  name: nameSchema,
  service: nameSchema,
  command: z.string().trim().min(1).max(4096),
  from: nameSchema,
  every: duration(MIN_EVERY_MS, MAX_EVERY_MS).optional(),
  timeout: duration(MIN_TIMEOUT_MS, MAX_TIMEOUT_MS).optional(),
});

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
    const parsed = checkTableSchema.safeParse(table);
    if (!parsed.success) {
      const { path, message } = fieldIssue(parsed.error.issues[0]!);
      problem(`${where}${path.length > 0 ? ` ${path.join('.')}` : ''}: ${message}`);
      return;
    }
    const { name, service, command, from } = parsed.data;
    const everyMs = parsed.data.every ?? DEFAULT_EVERY_MS;
    const timeoutMs = parsed.data.timeout ?? Math.min(DEFAULT_TIMEOUT_MS, everyMs);
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
