/**
 * Deploys and changes (SPEC "Deploy API", docs/deploys.md): what the deploy token sends and what mon
 * answers, and the rows reads show on timelines, charts and the overview.
 */

/** Where a deploy report came from. */
export type DeploySource = 'api' | 'codehost' | 'agent';

/** `POST /api/deploys` answers: 201 for a new deploy, 200 when it merged into one of the last 2 minutes. */
export type DeployAnswer = { event_id: number; merged: boolean };

/** `POST /api/changes` answers 201 with the change's id. */
export type ChangeAnswer = { event_id: number };

/** A recorded deploy. */
export type DeployRow = {
  id: number;
  ts: number;
  service: string;
  version: string;
  by: string | null;
  url: string | null;
  description: string | null;
  /** Every source that reported it, first first. */
  sources: DeploySource[];
  host: string | null;
};

/** A recorded change; `kind` push is a code-host push (code on its way, not yet live). */
export type ChangeRow = {
  id: number;
  ts: number;
  kind: 'change' | 'push';
  what: string;
  service: string | null;
  host: string | null;
  by: string | null;
  url: string | null;
  description: string | null;
};
