import { navigate, useLocation } from '../lib/router.tsx';

/**
 * The buttons that pick a read's range; the choice lives in the page's `?range=` so links keep it, beside
 * the page's other parameters (the site of the analytics page).
 */
export function RangePicker<R extends string>({
  ranges,
  value,
  label,
}: {
  ranges: readonly R[];
  value: R;
  /** Read by screen readers: what the range applies to. */
  label: string;
}) {
  const { path, query } = useLocation();
  const href = (range: R) => {
    const next = new URLSearchParams(query);
    next.set('range', range);
    return `${path}?${next}`;
  };
  return (
    <fieldset className="segmented">
      <legend className="sr-only">{label}</legend>
      {ranges.map((r) => (
        <button
          key={r}
          type="button"
          aria-pressed={r === value}
          onClick={() => navigate(href(r), { replace: true })}
        >
          {r}
        </button>
      ))}
    </fieldset>
  );
}
