import type { ReactNode } from 'react';

/** A data table that scrolls sideways on narrow screens; `head` holds the header row's cells. */
export function Table({ head, children, testId }: { head: ReactNode; children: ReactNode; testId?: string }) {
  return (
    <div style={{ overflowX: 'auto' }}>
      <table data-testid={testId}>
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** The header cell of a column of row actions (Edit, Remove…): named for screen readers only. */
export function ActionsHeader() {
  return (
    <th>
      <span className="sr-only">Actions</span>
    </th>
  );
}
