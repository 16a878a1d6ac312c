import type { CheckKind } from '../../../../../protocol/check.ts';
import { fieldId } from '../../../lib/form.ts';
import { type AssertionRow, type AssertionType, assertionLabel, assertionTypes, newKey } from './model.ts';

type Props = {
  kind: CheckKind;
  rows: AssertionRow[];
  onChange: (rows: AssertionRow[]) => void;
  /** Errors by row key. */
  errors: Map<number, string>;
};

const placeholders: Record<AssertionType, string> = {
  status: '200 or 2xx',
  bodyContains: 'text that must appear',
  bodyNotContains: 'text that must not appear',
  json: '$.status',
  equals: 'expected answer, e.g. 192.0.2.10',
  responseTimeBelowMs: '500',
};

/** Assertions of a check: one row each, the types the kind accepts. */
export function ExpectEditor({ kind, rows, onChange, errors }: Props) {
  const types = assertionTypes[kind];
  if (types.length === 0) return null;
  const update = (key: number, patch: Partial<AssertionRow>) =>
    onChange(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const visible = rows.filter((r) => types.includes(r.type));
  return (
    <fieldset data-field="expect">
      <legend>Assertions</legend>
      <p className="hint muted small" style={{ marginTop: 0 }}>
        {kind === 'http'
          ? 'Without assertions any 2xx status passes. A failing assertion marks the run down, or degraded when ticked.'
          : 'A failing assertion marks the run down, or degraded when ticked.'}
      </p>
      {visible.map((row, i) => {
        const error = errors.get(row.key);
        return (
          <div key={row.key} data-field={`expect[${i}]`} style={{ marginBottom: '0.75rem' }}>
            <div style={{ display: 'flex', gap: '0.5rem', alignItems: 'center', flexWrap: 'wrap' }}>
              <select
                aria-label={`Assertion ${i + 1} type`}
                value={row.type}
                onChange={(e) => update(row.key, { type: e.target.value as AssertionType })}
                style={{ width: 'auto' }}
              >
                {types.map((t) => (
                  <option key={t} value={t}>
                    {assertionLabel(kind, t)}
                  </option>
                ))}
              </select>
              <input
                id={fieldId(`expect[${i}]`)}
                aria-label={`Assertion ${i + 1} value`}
                aria-invalid={error ? true : undefined}
                value={row.value}
                placeholder={
                  kind === 'http' && row.type === 'equals'
                    ? 'the whole body, e.g. OK'
                    : placeholders[row.type]
                }
                inputMode={row.type === 'responseTimeBelowMs' ? 'numeric' : undefined}
                onChange={(e) => update(row.key, { value: e.target.value })}
                style={{ flex: '1 1 10rem', width: 'auto' }}
              />
              {row.type === 'json' ? (
                <input
                  aria-label={`Assertion ${i + 1} equals`}
                  value={row.equals}
                  placeholder="equals (optional): ok, 1, true"
                  onChange={(e) => update(row.key, { equals: e.target.value })}
                  style={{ flex: '1 1 8rem', width: 'auto' }}
                />
              ) : null}
              <label className="check">
                <input
                  type="checkbox"
                  checked={row.degraded}
                  onChange={(e) => update(row.key, { degraded: e.target.checked })}
                />
                degraded only
              </label>
              <button
                type="button"
                className="link-button danger"
                onClick={() => onChange(rows.filter((r) => r.key !== row.key))}
                aria-label={`Remove assertion ${i + 1}`}
              >
                Remove
              </button>
            </div>
            {error ? (
              <span className="field-error" role="alert">
                {error}
              </span>
            ) : null}
          </div>
        );
      })}
      <button
        type="button"
        style={{ marginBottom: '0.75rem' }}
        onClick={() =>
          onChange([...rows, { key: newKey(), type: types[0]!, value: '', equals: '', degraded: false }])
        }
      >
        Add assertion
      </button>
    </fieldset>
  );
}
