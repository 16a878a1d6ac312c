import type { DatabaseSync } from 'node:sqlite';
import type { DeclaredCheck, DeclareFrame } from '../../protocol/agent.ts';
import type { CommandBody } from '../../protocol/check.ts';
import type { CheckConflict } from '../../protocol/hosts.ts';
import type { CheckEngine } from '../checks/engine.ts';
import { deleteInJob, insertInJob, newId, newRecord, writeDefinition } from '../checks/manage.ts';
import { commandChecksOf } from '../checks/store.ts';
import type { ConfigService, LiveConfig } from '../config/service.ts';
import { bool, json, mapper, nullable, one, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import type { Tx } from '../store/writer.ts';

/**
 * Command checks of hosts' checks.toml (docs/checks.md). The agent declares them at start and every
 * hour; each becomes a check of kind `command` (`host_defined`), run by that agent alone. Names are
 * shared by checks, heartbeats and services wherever they are defined: a declared name that mon.toml,
 * the panel or another host holds is not taken (a conflict on the host page), and is added at a
 * declaration after it became free. mon.toml wins at once: a reload that takes a host check's name
 * removes the host check (checks/file-sync.ts).
 */

export type DeclarationContext = { engine: CheckEngine; config: ConfigService };

/** What `hosts.declared` holds: the usable checks of the last declaration and the problems found. */
export type Declaration = { ts: number; checks: DeclaredCheck[]; problems: string[] };

/**
 * A host declared the command checks of its checks.toml (inside the writer job that stores the frame):
 * stores the declaration, adds, changes or removes the host's command checks, and leaves names held
 * elsewhere as conflicts. The engine takes the changes in once committed.
 */
export function applyDeclaration(ctx: DeclarationContext, tx: Tx, host: string, frame: DeclareFrame): void {
  const { db } = tx;
  const { engine } = ctx;
  const now = engine.deps.clock.now();
  const config = ctx.config.current();
  const { usable, problems } = sortOut(frame.checks);
  const declaration: Declaration = {
    ts: frame.ts,
    checks: usable,
    problems: [...frame.problems, ...problems],
  };
  statement(db, 'UPDATE hosts SET declared = ? WHERE name = ?').run(JSON.stringify(declaration), host);

  const taken = new Map<string, CommandBody>();
  for (const d of usable) if (!holderOf(db, config, host, d)) taken.set(d.name, commandBody(host, d));
  const own = commandChecksOf(db, host);
  // Removals first, then changes, then new checks: each frees names and services for the next.
  for (const rec of own) if (!taken.has(rec.name)) deleteInJob(engine, tx, rec, now);
  const kept = new Set<string>();
  for (const rec of own) {
    const body = taken.get(rec.name);
    if (!body) continue;
    kept.add(rec.name);
    if (JSON.stringify(rec.body) !== JSON.stringify(body))
      writeDefinition(engine, tx, rec, body, null, false, now);
  }
  for (const [name, body] of taken) {
    if (!kept.has(name)) insertInJob(engine, tx, newRecord(newId(), body, now, false, null), now);
  }
}

/** The declared checks of a host not taken, and what holds each name (`checkConflicts` of the host read). */
export function checkConflictsOf(db: DatabaseSync, config: LiveConfig, host: string): CheckConflict[] {
  const declared = declarationOf(db, host);
  if (!declared) return [];
  const own = new Set(commandChecksOf(db, host).map((rec) => rec.name));
  return declared.checks.flatMap((d): CheckConflict[] => {
    if (own.has(d.name)) return [];
    const holder = holderOf(db, config, host, d);
    // Held by nothing now: taken at the agent's next declaration (within the hour).
    return [{ name: d.name, ...(holder ?? { with: 'free', host: null }) }];
  });
}

const declaredRow = mapper({ declared: nullable(json<Declaration>()) }, (r) => r.declared);

/** The host's last declaration, or null before its agent sent one. */
export function declarationOf(db: DatabaseSync, host: string): Declaration | null {
  return one(db, 'SELECT declared FROM hosts WHERE name = ?', declaredRow, host) ?? null;
}

/** The check as stored: keys in one order, so that an unchanged declaration compares equal. */
function commandBody(host: string, d: DeclaredCheck): CommandBody {
  return {
    name: d.name,
    service: d.service,
    kind: 'command',
    command: d.command,
    from: host,
    everyMs: d.everyMs,
    timeoutMs: d.timeoutMs,
  };
}

/**
 * The checks a declaration can hold at all, and problems (in the words of checks.toml) for the others:
 * a name declared twice, or a name that is also the service of a declared check.
 */
function sortOut(checks: DeclaredCheck[]): { usable: DeclaredCheck[]; problems: string[] } {
  const services = new Set(checks.map((c) => c.service));
  const seen = new Set<string>();
  const usable: DeclaredCheck[] = [];
  const problems: string[] = [];
  for (const c of checks) {
    if (seen.has(c.name)) problems.push(`check "${c.name}": declared twice; only the first is used`);
    else if (services.has(c.name))
      problems.push(
        `check "${c.name}": also the name of a service; checks and services need different names`,
      );
    else usable.push(c);
    seen.add(c.name);
  }
  return { usable, problems };
}

type Holder = Omit<CheckConflict, 'name'>;

/**
 * What keeps a declared check from being taken: mon.toml first (it wins over everything), then a
 * check of that name, a service of that name, or a check named like its service. The host's own
 * command checks hold nothing against it.
 */
function holderOf(db: DatabaseSync, config: LiveConfig, host: string, d: DeclaredCheck): Holder | null {
  const file = config.managed;
  if (file.checks.has(d.name) || file.services.has(d.name) || file.checks.has(d.service))
    return { with: 'file', host: null };
  return checkHolder(db, host, d.name) ?? serviceHolder(db, host, d.name) ?? checkHolder(db, host, d.service);
}

const checkRow = mapper({ managed: bool, hostDefined: bool, fromHost: nullable(text) });

function checkHolder(db: DatabaseSync, host: string, name: string): Holder | null {
  const row = one(
    db,
    "SELECT managed, host_defined, json_extract(body, '$.from') AS from_host FROM checks WHERE name = ?",
    checkRow,
    name,
  );
  if (!row) return null;
  if (row.managed) return { with: 'file', host: null };
  if (!row.hostDefined) return { with: 'panel', host: null };
  return row.fromHost === host ? null : { with: 'host', host: row.fromHost };
}

const serviceUse = mapper({ managed: bool, panelChecks: bool, otherHost: nullable(text) });

/**
 * A service of that name: mon.toml's, the panel's (a panel check in it, or no check at all), or
 * another host's (only its command checks in it). One that only this host's checks use holds nothing:
 * those checks are the host's to move.
 */
function serviceHolder(db: DatabaseSync, host: string, name: string): Holder | null {
  const row = one(
    db,
    `SELECT s.managed,
       NOT EXISTS (SELECT 1 FROM checks c WHERE c.service = s.name)
         OR EXISTS (SELECT 1 FROM checks c WHERE c.service = s.name AND c.host_defined = 0) AS panel_checks,
       (SELECT json_extract(c.body, '$.from') FROM checks c
         WHERE c.service = s.name AND c.host_defined = 1 AND json_extract(c.body, '$.from') <> ?
         ORDER BY c.name LIMIT 1) AS other_host
     FROM services s WHERE s.name = ?`,
    serviceUse,
    host,
    name,
  );
  if (!row) return null;
  if (row.managed) return { with: 'file', host: null };
  if (row.panelChecks) return { with: 'panel', host: null };
  return row.otherHost === null ? null : { with: 'host', host: row.otherHost };
}
