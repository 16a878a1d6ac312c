import { stringify } from 'smol-toml';
import { referencedNames } from '../../protocol/env-refs.ts';
import { formatPath, type Path } from './paths.ts';
import type {
  ExportContext,
  SecretSpot,
  StoredChannel,
  StoredCheck,
  StoredHost,
  TomlTable,
} from './section.ts';
import type { LiveConfig } from './sections.ts';
import { sections } from './sections.ts';

/** An environment variable the exported text refers to; never its value. */
export type SecretRef = { name: string; key: string; about: string };
export type ConfigExport = { toml: string; secrets: SecretRef[] };

type Table = TomlTable;

/**
 * The whole configuration (file objects, then panel checks and channels) as one mon.toml text that the
 * loader accepts; `stored` are the checks in the database (panel checks, and heartbeats' token hashes),
 * `channels` the channels made in the panel, `hosts` those added through the API or by agents (a host a
 * check runs from is written with its thresholds). Values that came from `${NAME}` keep their reference;
 * secrets become references listed in `secrets`; `references` maps file paths to the file's text (see
 * load.ts).
 */
export function exportConfig(
  config: LiveConfig,
  references: ReadonlyMap<string, string>,
  stored: readonly StoredCheck[],
  channels: readonly StoredChannel[] = [],
  hosts: readonly StoredHost[] = [],
): ConfigExport {
  const tree = toTree(config, { stored, channels, hosts });
  restoreReferences(tree, [], references);

  const used = new Set<string>();
  walkStrings(tree, [], (value) => {
    for (const name of referencedNames(value)) used.add(name);
  });
  const secrets: SecretRef[] = [];
  const listed = new Set<string>();
  /** Turns the string at `spot.path` into a reference unless it already is one; lists the variables. */
  const protect = ({ path, suggested, about }: SecretSpot) => {
    const table = valueAt(tree, path.slice(0, -1)) as Table | undefined;
    const key = path.at(-1)!;
    const value = table?.[key];
    if (typeof value !== 'string') return;
    let names = referencedNames(value);
    if (names.length === 0) {
      let name = envName(suggested);
      for (let n = 2; used.has(name); n++) name = `${envName(suggested)}_${n}`;
      used.add(name);
      table![key] = `\${${name}}`;
      names = [name];
    }
    for (const name of names) {
      if (listed.has(name)) continue;
      listed.add(name);
      secrets.push({ name, key: formatPath(path), about });
    }
  };
  for (const section of sections) section.secrets?.(tree).forEach(protect);
  // Variables the file itself referred to in other places.
  walkStrings(tree, [], (value, path) => {
    for (const name of referencedNames(value)) {
      if (listed.has(name)) continue;
      listed.add(name);
      secrets.push({
        name,
        key: formatPath(path),
        about: `Environment variable used by ${formatPath(path)}`,
      });
    }
  });

  const header =
    '# mon configuration export. Set the environment variables listed with it before loading.\n\n';
  return { toml: header + stringify(tree), secrets };
}

/** Each section's tables, in the order of the list (smol-toml writes plain keys before tables). */
function toTree(config: LiveConfig, context: ExportContext): Table {
  const values = config as unknown as Record<string, unknown>;
  const tree: Table = {};
  for (const section of sections) Object.assign(tree, section.toToml(values[section.key], context));
  return tree;
}

function valueAt(node: unknown, path: Path): unknown {
  let at = node;
  for (const part of path) at = (at as Record<string | number, unknown> | undefined)?.[part];
  return at;
}

/** Puts back the file's `${NAME}` text where a value came from the environment. */
function restoreReferences(node: unknown, path: Path, references: ReadonlyMap<string, string>): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      if (typeof item === 'string') {
        const raw = references.get(formatPath([...path, i]));
        if (raw !== undefined) node[i] = raw;
      } else restoreReferences(item, [...path, i], references);
    });
  } else if (node && typeof node === 'object') {
    const table = node as Table;
    for (const [key, value] of Object.entries(table)) {
      if (typeof value === 'string') {
        const raw = references.get(formatPath([...path, key]));
        if (raw !== undefined) table[key] = raw;
      } else restoreReferences(value, [...path, key], references);
    }
  }
}

function walkStrings(node: unknown, path: Path, visit: (value: string, path: Path) => void): void {
  if (typeof node === 'string') visit(node, path);
  else if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) walkStrings(item, [...path, i], visit);
  } else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) walkStrings(value, [...path, key], visit);
  }
}

/** `MON_ALERT_telegram-2_bot_token` → `MON_ALERT_TELEGRAM_2_BOT_TOKEN`. */
function envName(text: string): string {
  return text
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}
