import type { CheckKind } from '../../../../../protocol/check.ts';
import { ApiError } from '../../../lib/api.ts';
import type { FieldErrors } from '../../../lib/form.ts';
import { type Built, fieldLabel, readableMessage } from './model.ts';

/**
 * The check form's errors by field path, pure. Assertion rows are `expect[i]`, `i` counting the rows
 * as sent (`Built.expectRows`); the form puts them at the row that was sent there.
 */

/** Errors found before sending: the fields' first, then the assertion rows'; null when there are none. */
export function localErrors(built: Built): FieldErrors | null {
  const errors: FieldErrors = { ...built.errors };
  built.expectRows.forEach((key, i) => {
    const message = built.expectErrors.get(key);
    if (message !== undefined) errors[`expect[${i}]`] = message;
  });
  return Object.keys(errors).length > 0 ? errors : null;
}

/**
 * A server answer at the field it names, in the form's words: a 422 `detail` "path: message", or a 409
 * about the name. `expect[1].status` lands at the row sent as `expect[1]`; `headers.Bad Name` at the
 * headers, naming the header. Null when the error belongs to the whole form.
 */
export function serverErrors(error: unknown, kind: CheckKind, sentRows: number): FieldErrors | null {
  if (!(error instanceof ApiError)) return null;
  const field = error.field();
  if (field) {
    const row = /^expect\[(\d+)\]/.exec(field.path);
    if (row && Number(row[1]) < sentRows) {
      return { [`expect[${row[1]}]`]: readableMessage(kind, '', field.message) };
    }
    const top = field.path.split(/[.[]/)[0]!;
    const rest = field.path.slice(top.length).replace(/^\./, '');
    const message = readableMessage(kind, top, field.message);
    return { [top]: top === 'headers' && rest ? `${rest}: ${message}` : message };
  }
  if (error.status === 409 && /name/i.test(error.detail ?? '')) return { name: error.text };
  return null;
}

/** The errors of assertion rows by row key, given the keys of the rows as they were sent. */
export function rowErrors(errors: FieldErrors, sentRows: readonly number[]): Map<number, string> {
  const out = new Map<number, string>();
  sentRows.forEach((key, i) => {
    const message = errors[`expect[${i}]`];
    if (message !== undefined) out.set(key, message);
  });
  return out;
}

/** Errors naming a field the form does not show, as "label: message" lines. */
export function strayErrors(errors: FieldErrors, kind: CheckKind, shown: ReadonlySet<string>): string[] {
  return Object.entries(errors)
    .filter(([path]) => !shown.has(path) && !/^expect\[\d+\]$/.test(path))
    .map(([path, message]) => `${fieldLabel(kind, path) ?? path}: ${message}`);
}
