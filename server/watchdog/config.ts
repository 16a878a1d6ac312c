import { z } from 'zod';
import { durationSchema, formatDuration } from '../config/durations.ts';
import { type Built, configSection, type SecretSpot, type TomlTable } from '../config/section.ts';
import {
  DEFAULT_EVERY_MS,
  MAX_EVERY_MS,
  MIN_EVERY_MS,
  type TargetSettings,
  tokenText,
  urlProblem,
  urlText,
} from './targets.ts';

/**
 * The `[watchdog]` table of mon.toml (docs/configuration.md):
 *
 *   [watchdog]
 *   every = "1m"                                    # how often, 10s to 1d
 *
 *   [watchdog.edge]
 *   url = "https://edge.example.com/mon"
 *   token = "${MON_EDGE_TOKEN}"                     # sent as Authorization: Bearer
 *
 *   [watchdog.heartbeat]
 *   url = "https://hc.example.com/ping/${HC_PING_ID}"
 *
 * `allow_private = true` in either table lets it reach a private address or use plain http://. A
 * target the file sets is read-only in the API (409). The edge's token and the heartbeat's whole URL
 * (its path is the secret) leave only as `${NAME}` references in the export.
 */

export type WatchdogSettings = {
  everyMs: number;
  edge: TargetSettings | null;
  heartbeat: TargetSettings | null;
};

/** Adds urlProblem's finding at `url`, where mon.toml's reader looks for it. */
const checkUrl = (target: { url: string; allow_private: boolean }, ctx: z.RefinementCtx) => {
  const problem = urlProblem(target.url, target.allow_private, 'allow_private');
  if (problem) ctx.addIssue({ code: 'custom', path: ['url'], message: problem });
};

const edgeSchema = z
  .strictObject({ url: urlText, token: tokenText, allow_private: z.boolean().default(false) })
  .superRefine(checkUrl);

const heartbeatSchema = z
  .strictObject({ url: urlText, allow_private: z.boolean().default(false) })
  .superRefine(checkUrl);

const watchdogSchema = z.strictObject({
  every: durationSchema({ min: MIN_EVERY_MS, max: MAX_EVERY_MS }).optional(),
  edge: edgeSchema.optional(),
  heartbeat: heartbeatSchema.optional(),
});

const fileTarget = (t: TargetSettings, withToken: boolean): TomlTable => ({
  url: t.url,
  ...(withToken ? { token: t.token } : {}),
  ...(t.allowPrivate ? { allow_private: true } : {}),
});

export const watchdogSection = configSection({
  key: 'watchdog',
  tables: { watchdog: watchdogSchema.optional() },
  build: (input): Built<WatchdogSettings> => {
    const w = input.watchdog;
    return {
      value: {
        everyMs: w?.every ?? DEFAULT_EVERY_MS,
        edge: w?.edge ? { url: w.edge.url, token: w.edge.token, allowPrivate: w.edge.allow_private } : null,
        heartbeat: w?.heartbeat
          ? { url: w.heartbeat.url, token: null, allowPrivate: w.heartbeat.allow_private }
          : null,
      },
      errors: [],
    };
  },
  empty: (): WatchdogSettings => ({ everyMs: DEFAULT_EVERY_MS, edge: null, heartbeat: null }),
  toToml(value): TomlTable {
    const out: TomlTable = {};
    if (value.everyMs !== DEFAULT_EVERY_MS) out.every = formatDuration(value.everyMs);
    if (value.edge) out.edge = fileTarget(value.edge, true);
    if (value.heartbeat) out.heartbeat = fileTarget(value.heartbeat, false);
    return Object.keys(out).length > 0 ? { watchdog: out } : {};
  },
  secrets(tree) {
    const watchdog = tree.watchdog as TomlTable | undefined;
    const spots: SecretSpot[] = [];
    if (watchdog?.edge)
      spots.push({
        path: ['watchdog', 'edge', 'token'],
        suggested: 'MON_WATCHDOG_EDGE_TOKEN',
        about: 'Bearer token of the watchdog edge',
      });
    if (watchdog?.heartbeat)
      spots.push({
        path: ['watchdog', 'heartbeat', 'url'],
        suggested: 'MON_WATCHDOG_HEARTBEAT_URL',
        about: 'Watchdog heartbeat URL (its path is a secret)',
      });
    return spots;
  },
});
