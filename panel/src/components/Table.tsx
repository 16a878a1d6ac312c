import type { ReactNode } from 'react';

/**
 * A data table that scrolls sideways on narrow screens, with a shadow at the side that has more;
 * `head` holds the header row's cells. Its box is the containing block of what is placed inside it (a
 * header named for screen readers only), so nothing of the table widens the page.
 */
export function Table({ head, children, testId }: { head: ReactNode; children: ReactNode; testId?: string }) {
  return (
    <div className="table-scroll">
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
