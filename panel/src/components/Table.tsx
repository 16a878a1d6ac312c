import { type ReactNode, useLayoutEffect, useRef, useState } from 'react';

/** How a scroll box is named for screen readers: by the element(s) of `labelledBy`, or by `label`. */
type BoxName = { labelledBy?: string; label?: string };

/**
 * A data table that scrolls sideways on narrow screens, with a shadow at the side that has more;
 * `head` holds the header row's cells. Its box is the containing block of what is placed inside it (a
 * header named for screen readers only), so nothing of the table widens the page.
 *
 * While the table is wider than its box, the box takes the keyboard's focus (a region named as the
 * table: `label`, else its card's heading), so that arrow keys scroll a table that has no control of
 * its own to tab to; when everything shows, it is no stop on the way.
 */
export function Table({
  head,
  children,
  testId,
  className,
  label,
}: {
  head: ReactNode;
  children: ReactNode;
  testId?: string;
  className?: string;
  label?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [name, setName] = useState<BoxName | null>(null);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => {
      const overflows = el.scrollWidth > el.clientWidth + 1;
      setName((was) => {
        if (!overflows) return null;
        const now = boxName(el, label);
        return was && was.labelledBy === now.labelledBy && was.label === now.label ? was : now;
      });
    };
    measure();
    // The box changes with the window, the table with its rows.
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    return () => observer.disconnect();
  }, [label]);
  return (
    <div
      ref={box}
      className="table-scroll"
      {...(name
        ? { tabIndex: 0, role: 'region', 'aria-labelledby': name.labelledBy, 'aria-label': name.label }
        : {})}
    >
      <table data-testid={testId} className={className}>
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/**
 * The name of a table's scroll box: `label`, its caption, the heading of the card it is in, else the
 * page's.
 */
function boxName(box: HTMLElement, label: string | undefined): BoxName {
  if (label) return { label };
  const caption = box.querySelector('caption')?.textContent?.trim();
  if (caption) return { label: caption };
  const section = box.closest('section, .card');
  const labelledBy = section?.getAttribute('aria-labelledby');
  if (labelledBy) return { labelledBy };
  const heading = section?.querySelector('h1, h2, h3') ?? box.closest('main')?.querySelector('h1');
  if (heading?.id) return { labelledBy: heading.id };
  return { label: heading?.textContent?.trim() || 'Table' };
}

/** The header cell of a column of row actions (Edit, Remove…): named for screen readers only. */
export function ActionsHeader() {
  return (
    <th>
      <span className="sr-only">Actions</span>
    </th>
  );
}
