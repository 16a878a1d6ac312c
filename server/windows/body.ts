import { z } from 'zod';
import { DAY } from '../../protocol/durations.ts';
import type { WindowBody, WindowScope } from '../../protocol/notify.ts';
import { invalid } from '../problem.ts';
// mon's words for every issue the schema leaves to the fallback (unknown fields among them).
import '../../protocol/messages.ts';

/**
 * The body of `POST /api/v1/silences`, `POST /api/v1/maintenance` and their PUTs (docs/notifications.md
 * "Silences and maintenance windows"): the shape here, the rules that need the time and the names mon
 * knows in `windowRules`.
 */

export const windowScopes = ['all', 'service', 'host'] as const satisfies readonly WindowScope[];

/** The longest a window may last. */
export const MAX_WINDOW_MS = 90 * DAY;
export const MAX_REASON = 500;

const milliseconds = z
  .number({ error: (issue) => (issue.input === undefined ? 'required' : 'must be a time in milliseconds') })
  .int('must be a time in whole milliseconds')
  .min(0, 'must be a time in milliseconds')
  .max(Number.MAX_SAFE_INTEGER, 'must be a time in milliseconds');

export const windowBodySchema = z.strictObject(
  {
    scope: z.enum(windowScopes, {
      error: (issue) =>
        issue.input === undefined ? 'required' : `must be one of ${windowScopes.join(', ')}`,
    }),
    name: z
      .string({ error: 'must be the name of a service or host, or null' })
      .trim()
      .min(1, 'must not be empty')
      .max(200, 'must be at most 200 characters')
      .nullable()
      .optional(),
    starts: milliseconds,
    ends: milliseconds,
    reason: z
      .string({ error: 'must be text or null' })
      .trim()
      .max(MAX_REASON, `must be at most ${MAX_REASON} characters`)
      .nullable()
      .optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? undefined
        : 'must be a window object such as {"scope": "service", "name": "api", "starts": 0, "ends": 0}',
  },
);

/** The names a window may take: services mon has, and hosts mon knows (mon.toml's, added or linked). */
export type KnownNames = { service(name: string): boolean; host(name: string): boolean };

/**
 * The rules beyond the shape (SPEC "Window rules"): a name for `service` and `host` that mon knows, none
 * for `all`; the window ends after it starts, in the future, at most 90 days after it starts. Throws a
 * 422 naming the field; returns the body with an empty reason as null.
 */
export function windowRules(raw: unknown, now: number, known: KnownNames): WindowBody {
  const body = windowBodySchema.parse(raw);
  const name = body.name ?? null;
  if (body.scope === 'all' && name !== null) throw invalid('name', 'must be null for scope all');
  if (body.scope !== 'all') {
    if (name === null) throw invalid('name', `required for scope ${body.scope}`);
    if (body.scope === 'service' && !known.service(name)) throw invalid('name', 'unknown service');
    if (body.scope === 'host' && !known.host(name)) throw invalid('name', 'unknown host');
  }
  if (body.ends <= body.starts) throw invalid('ends', 'must be after starts');
  if (body.ends <= now) throw invalid('ends', 'must be in the future');
  if (body.ends - body.starts > MAX_WINDOW_MS) throw invalid('ends', 'a window lasts at most 90 days');
  return { scope: body.scope, name, starts: body.starts, ends: body.ends, reason: body.reason || null };
}
