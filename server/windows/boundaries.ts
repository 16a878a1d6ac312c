import type { DatabaseSync } from 'node:sqlite';
import type { LiveKey } from '../../protocol/live.ts';
import type { Clock, TimerHandle } from '../clock.ts';
import { all, int, mapper, nullable, oneOf, scalar, text } from '../store/rows.ts';

/**
 * One timer for the moments windows start and end: then the screens that show their services ("in
 * maintenance until …") are told to reload, as when a window is made or changed. The timer waits for
 * the next start or end of any window; `replan` after each change.
 */

const whereRow = mapper({
  scope: oneOf(['all', 'service', 'host'] as const),
  name: nullable(text),
});

type Where = { scope: 'all' | 'service' | 'host'; name: string | null };

/** The first start or end of a window after `now`, or null. */
function nextBoundary(db: DatabaseSync, now: number): number | null {
  return scalar(
    db,
    'SELECT min(CASE WHEN starts > ? THEN starts ELSE ends END) FROM windows WHERE ends > ?',
    nullable(int),
    now,
    now,
  );
}

/** Windows that started or ended in (after, upTo]. */
function crossed(db: DatabaseSync, after: number, upTo: number): Where[] {
  return all(
    db,
    `SELECT scope, name FROM windows
     WHERE (starts > ?1 AND starts <= ?2) OR (ends > ?1 AND ends <= ?2)`,
    whereRow,
    after,
    upTo,
  );
}

export type Boundaries = { replan(): void; stop(): void };

export function windowBoundaries(options: {
  clock: Clock;
  read: DatabaseSync;
  keysOf: (where: Where) => LiveKey[];
  publish: (keys: LiveKey[]) => void;
}): Boundaries {
  const { clock, read } = options;
  let timer: TimerHandle | null = null;
  let since = clock.now();
  let stopped = false;

  const fire = () => {
    timer = null;
    const now = clock.now();
    const keys = new Set(crossed(read, since, now).flatMap(options.keysOf));
    since = now;
    options.publish([...keys]);
    plan();
  };
  const plan = () => {
    if (timer) clock.clearTimeout(timer);
    timer = null;
    if (stopped) return;
    const at = nextBoundary(read, clock.now());
    if (at !== null) timer = clock.setTimeout(fire, at - clock.now());
  };
  return {
    replan: plan,
    stop() {
      stopped = true;
      if (timer) clock.clearTimeout(timer);
      timer = null;
    },
  };
}
