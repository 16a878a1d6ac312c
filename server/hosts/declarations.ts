import type { DatabaseSync } from 'node:sqlite';
import type { DeclareFrame } from '../../protocol/agent.ts';
import type { CheckConflict } from '../../protocol/hosts.ts';
import type { CheckEngine } from '../checks/engine.ts';
import type { ConfigService, LiveConfig } from '../config/service.ts';
import type { Tx } from '../store/writer.ts';

export type DeclarationContext = { engine: CheckEngine; config: ConfigService };

/**
 * A host declared the command checks of its checks.toml (inside the writer job that stores the frame):
 * stores the declaration, adds, changes or removes the host's command checks, and leaves names held
 * elsewhere as conflicts.
 */
export function applyDeclaration(
  _ctx: DeclarationContext,
  _tx: Tx,
  _host: string,
  _frame: DeclareFrame,
): void {}

/** The declared checks of a host not taken, and what holds each name (`checkConflicts` of the host read). */
export function checkConflictsOf(_db: DatabaseSync, _config: LiveConfig, _host: string): CheckConflict[] {
  return [];
}
