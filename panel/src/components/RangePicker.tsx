import { navigate, useLocation } from '../lib/router.tsx';

/** The buttons that pick a read's range; the choice lives in the page's `?range=` so links keep it. */
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
  const { path } = useLocation();
  return (
    <fieldset className="segmented">
      <legend className="sr-only">{label}</legend>
      {ranges.map((r) => (
        <button
          key={r}
          type="button"
          aria-pressed={r === value}
          onClick={() => navigate(`${path}?range=${r}`, { replace: true })}
        >
          {r}
        </button>
      ))}
    </fieldset>
  );
}
