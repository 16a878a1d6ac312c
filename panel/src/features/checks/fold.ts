import type { HistoryItem } from '../../../../protocol/reads.ts';

/**
 * History rows: consecutive failed runs with the same status and detail fold into one row. Folding
 * happens here, over every page loaded so far, not in the server's read: the read keeps one item per
 * run with its plain `before`/`limit` paging, and a fold that reaches past a page grows when the older
 * page loads. The runs of a fold are newest first, as the history.
 */
export type HistoryRow = { kind: 'item'; item: HistoryItem } | { kind: 'fold'; runs: HistoryItem[] };

const sameFailure = (a: HistoryItem, b: HistoryItem) =>
  a.kind === 'failure' && b.kind === 'failure' && a.status === b.status && a.detail === b.detail;

export function foldHistory(items: HistoryItem[]): HistoryRow[] {
  const rows: HistoryRow[] = [];
  let run: HistoryItem[] = [];
  const close = () => {
    if (run.length > 1) rows.push({ kind: 'fold', runs: run });
    else if (run.length === 1) rows.push({ kind: 'item', item: run[0]! });
    run = [];
  };
  for (const item of items) {
    if (run.length > 0 && !sameFailure(run[0]!, item)) close();
    if (item.kind === 'failure') run.push(item);
    else rows.push({ kind: 'item', item });
  }
  close();
  return rows;
}
