import { analyticsSection } from '../analytics/config.ts';
import { authSection } from '../auth/config.ts';
import { checkSection, checkSettingsSection } from '../checks/config.ts';
import { codehostSection } from '../deploys/config.ts';
import { hostSection } from '../hosts/config.ts';
import { alertSection } from '../notify/config.ts';
import { notifySection } from '../notify/notify-config.ts';
import { watchdogSection } from '../watchdog/config.ts';
import { retentionSection, serverSection, serviceSection } from './core.ts';
import type { AnySection, ManagedNames } from './section.ts';

/**
 * Every section of mon.toml, in file order (the order of error lines and of the export). The loader,
 * the export, `emptyConfig()` and `managedNames()` iterate this list; LiveConfig has one field per
 * section. This is the only module of config/ that imports the features.
 *
 * A feature adds its configuration with one file and one line here:
 * 1. `server/<feature>/config.ts` exports `configSection({key, tables, build, empty, toToml, ...})`
 *    (see section.ts): `tables` are its top-level keys with zod schemas, `build` turns them into its
 *    value, `empty` is the value of an empty file, `toToml` is the export, `secrets` names the keys
 *    the export turns into `${NAME}`, `keepRaw` the paths whose references stay as written, `names`
 *    the managed names it claims.
 * 2. Its section is added to the list below; `config.current().<key>` is then typed.
 * Rules that involve names of several sections go in collisions.ts; keys go in docs/configuration.md.
 */
const list = [
  serverSection,
  retentionSection,
  authSection,
  serviceSection,
  hostSection,
  checkSettingsSection,
  checkSection,
  alertSection,
  notifySection,
  codehostSection,
  watchdogSection,
  analyticsSection,
] as const;

type Section = (typeof list)[number];

/**
 * The live configuration: the last good mon.toml merged with what the server needs to know of it.
 * Readers call `current()` each time they need a value so that a reload takes effect at once.
 */
export type LiveConfig = { [S in Section as S['key']]: ReturnType<S['empty']> } & { managed: ManagedNames };

/** The sections with their types erased, for iterating; a section that does not fit fails here. */
export const sections: readonly AnySection[] = list;
