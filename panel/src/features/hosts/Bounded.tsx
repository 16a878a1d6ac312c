import { useDeferredValue, useMemo, useState } from 'react';
import { matches, SHOWN } from './item-order.ts';

export type Bounded<T> = {
  filter: string;
  setFilter: (text: string) => void;
  all: boolean;
  setAll: (all: boolean) => void;
  /** Rows the filter matches, in the order given. */
  matching: readonly T[];
  /** What the table lists: the first SHOWN of `matching`, or all of them once asked. */
  shown: readonly T[];
};

/**
 * A long list cut to its first SHOWN rows, with a filter over all of them. `words` must be stable (a
 * module-level function): the filtering is memoised on it. Typing is deferred, so a keystroke never
 * waits for the table.
 */
export function useBounded<T>(rows: readonly T[], words: (row: T) => readonly (string | null)[]): Bounded<T> {
  const [filter, setFilter] = useState('');
  const [all, setAll] = useState(false);
  const typed = useDeferredValue(filter);
  const matching = useMemo(
    () => (typed.trim() === '' ? rows : rows.filter((r) => matches(typed, words(r)))),
    [rows, typed, words],
  );
  const shown = useMemo(() => (all ? matching : matching.slice(0, SHOWN)), [all, matching]);
  return { filter, setFilter, all, setAll, matching, shown };
}

/**
 * The filter box, "N of M" and "Show all", above a list longer than SHOWN; nothing for a shorter one.
 * `what` names the rows ("containers").
 */
export function BoundedControls<T>({
  list,
  total,
  what,
  testId,
}: {
  list: Bounded<T>;
  total: number;
  what: string;
  testId: string;
}) {
  if (total <= SHOWN) return null;
  const { filter, matching, shown, all } = list;
  const filtered = filter.trim() !== '';
  return (
    <div className="card-body bounded-controls" data-testid={testId}>
      <input
        type="search"
        placeholder={`Filter ${what}`}
        aria-label={`Filter ${what}`}
        value={filter}
        onChange={(e) => list.setFilter(e.currentTarget.value)}
        autoComplete="off"
      />
      <span className="muted small" aria-live="polite">
        {matching.length === 0
          ? `Nothing matches “${filter.trim()}”.`
          : `${shown.length} of ${filtered ? `${matching.length} matching, ` : ''}${total}`}
      </span>
      {matching.length > SHOWN ? (
        <button type="button" className="link-button" aria-expanded={all} onClick={() => list.setAll(!all)}>
          {all ? `Show the first ${SHOWN}` : `Show all ${matching.length}`}
        </button>
      ) : null}
    </div>
  );
}
