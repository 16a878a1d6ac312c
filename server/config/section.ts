import type { z } from 'zod';
import type { CheckBody } from '../../protocol/check.ts';
import type { HostAlerts } from '../../protocol/hosts.ts';
import type { ChannelKind } from '../../protocol/notify.ts';
import type { ChannelSettings } from '../notify/config.ts';
import type { Path, PathError } from './paths.ts';

/**
 * A configuration section: the part of mon.toml one feature owns. The loader, the export, the empty
 * configuration and the managed names iterate the sections registered in sections.ts; a section never
 * imports the loader or the export. Rules between sections (shared names, `depends_on`) are in
 * collisions.ts, not here.
 */
export type ConfigSection<Key extends string, Tables extends z.ZodRawShape, Value> = {
  /** The LiveConfig field it fills. */
  key: Key;
  /**
   * The top-level keys of mon.toml it owns (usually one table such as `alert`) and their schemas, in
   * file (snake_case) keys. The file schema is one strict object of every section's tables.
   */
  tables: Tables;
  /**
   * Checks the rules between keys of its tables and turns them into its value. `value` holds what is
   * valid even when there are errors (the cross-section rules still look at it).
   */
  build(input: z.output<z.ZodObject<Tables>>): Built<Value>;
  /** The value of an empty or missing file (a new value each call). */
  empty(): Value;
  /** The value as mon.toml: its top-level keys, leaving out those at their default. */
  toToml(value: Value, context: ExportContext): TomlTable;
  /**
   * Where the exported tree (of every section, `${NAME}` references restored) holds secrets of this
   * section. The export turns each literal string there into a reference.
   */
  secrets?(tree: Readonly<TomlTable>): SecretSpot[];
  /** File paths whose `${NAME}` references stay as written (expanded later, at use). */
  keepRaw?(path: Path): boolean;
  /** Names of file-managed objects this section claims. */
  names?(value: Value): NameClaims;
};

/** A section's value with the errors found while building it. */
export type Built<Value> = { value: Value; errors: PathError[] };

/** A section with its types erased, as the loader and the export iterate them. */
export type AnySection = ConfigSection<string, z.ZodRawShape, unknown>;

/** Helper that infers a section's types from its definition. */
export function configSection<Key extends string, Tables extends z.ZodRawShape, Value>(
  section: ConfigSection<Key, Tables, Value>,
): ConfigSection<Key, Tables, Value> {
  return section;
}

/** Top-level keys of mon.toml and their values, as smol-toml writes them. */
export type TomlTable = Record<string, unknown>;

/**
 * A secret in the exported tree: `path` leads to the string, `suggested` is the variable name to use
 * (made upper case, `_`-separated and unique by the export), `about` tells the user what it is.
 */
export type SecretSpot = { path: Path; suggested: string; about: string };

/**
 * A check as stored (file and panel checks; not those of hosts' checks files), for the export: panel
 * checks (`managed` false) are written after the file's own, and a heartbeat's stored token hash keeps
 * its URL when the export is loaded as mon.toml.
 */
export type StoredCheck = { body: CheckBody; managed: boolean; pingTokenHash: string | null };

/** A notification channel made in the panel or the API, for the export (written after the file's own). */
export type StoredChannel = { name: string; kind: ChannelKind; settings: ChannelSettings };

/** A host added through the API or by an agent, with the thresholds set through the API (null: the defaults). */
export type StoredHost = { name: string; alerts: HostAlerts | null };

/** What the export writes besides the file's own objects. */
export type ExportContext = {
  stored: readonly StoredCheck[];
  channels: readonly StoredChannel[];
  hosts: readonly StoredHost[];
};

/** Names of file-managed objects: the API answers 409 to changes of these. */
export type ManagedNames = {
  /** Checks and heartbeats of `[[check]]`. */
  checks: ReadonlySet<string>;
  /** Services of `[[service]]` and services named by a `[[check]]`. */
  services: ReadonlySet<string>;
  /** Hosts of `[[host]]` (their alert thresholds). */
  hosts: ReadonlySet<string>;
  /** Channels of `[[alert]]`. */
  alerts: ReadonlySet<string>;
};

/** The names one section claims, per kind; the claims of all sections are merged. */
export type NameClaims = { [Kind in keyof ManagedNames]?: Iterable<string> };
