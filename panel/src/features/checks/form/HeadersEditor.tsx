import { fieldId } from '../../../lib/form.ts';
import { type HeaderRow, newKey } from './model.ts';

/** Request headers of an HTTP check as name/value rows. */
export function HeadersEditor({
  rows,
  onChange,
  error,
}: {
  rows: HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  error: string | undefined;
}) {
  const update = (key: number, patch: Partial<HeaderRow>) =>
    onChange(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  return (
    <fieldset data-field="headers">
      <legend>Request headers</legend>
      {rows.map((row, i) => (
        <div key={row.key} style={{ display: 'flex', gap: '0.5rem', marginBottom: '0.5rem' }}>
          <input
            id={i === 0 ? fieldId('headers') : undefined}
            aria-label={`Header ${i + 1} name`}
            placeholder="Authorization"
            value={row.name}
            onChange={(e) => update(row.key, { name: e.target.value })}
          />
          <input
            aria-label={`Header ${i + 1} value`}
            placeholder={row.value === null ? 'stored value (hidden); type to replace' : 'value'}
            value={row.value ?? ''}
            onChange={(e) => update(row.key, { value: e.target.value })}
          />
          <button
            type="button"
            className="link-button danger"
            aria-label={`Remove header ${i + 1}`}
            onClick={() => onChange(rows.filter((r) => r.key !== row.key))}
          >
            Remove
          </button>
        </div>
      ))}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <button
        type="button"
        style={{ marginBottom: '0.75rem' }}
        onClick={() => onChange([...rows, { key: newKey(), name: '', value: '' }])}
      >
        Add header
      </button>
    </fieldset>
  );
}
