import { nameSchema } from '../../protocol/check.ts';
import { httpUrlOf } from '../../protocol/targets.ts';
import { hiddenTextProblem } from '../../protocol/text.ts';
import { badRequest, invalid } from '../problem.ts';

/**
 * The fields of `POST /api/deploys` and `POST /api/changes` (docs/deploys.md). An unknown field or a
 * missing required one is a 400; a value that is empty (when required), longer than 500 characters
 * or of the wrong form is a 422 naming the field. Values are trimmed; an empty optional field counts
 * as absent. Whether `service` exists is decided when the report is written (record.ts).
 */

/** Each field at most this many characters. */
export const MAX_FIELD_LENGTH = 500;

/** How a field's value is judged: one line of text, text with line breaks, a link, a host name. */
type Form = 'line' | 'text' | 'url' | 'host';
type Spec = Record<string, { required: boolean; form: Form }>;

const deploySpec = {
  service: { required: true, form: 'line' },
  version: { required: true, form: 'line' },
  by: { required: false, form: 'line' },
  url: { required: false, form: 'url' },
  description: { required: false, form: 'text' },
} as const satisfies Spec;

const changeSpec = {
  what: { required: true, form: 'line' },
  service: { required: false, form: 'line' },
  host: { required: false, form: 'host' },
  by: { required: false, form: 'line' },
  url: { required: false, form: 'url' },
  description: { required: false, form: 'text' },
} as const satisfies Spec;

type Values<S extends Spec> = {
  [K in keyof S]: S[K] extends { required: true } ? string : string | null;
};

export type DeployFields = Values<typeof deploySpec>;
export type ChangeFields = Values<typeof changeSpec>;

export const deployFields = (fields: ReadonlyMap<string, unknown>): DeployFields => judge(fields, deploySpec);
export const changeFields = (fields: ReadonlyMap<string, unknown>): ChangeFields => judge(fields, changeSpec);

function judge<S extends Spec>(fields: ReadonlyMap<string, unknown>, spec: S): Values<S> {
  for (const key of fields.keys()) {
    if (!Object.hasOwn(spec, key)) throw badRequest(`${key}: unknown field`);
  }
  for (const [key, { required }] of Object.entries(spec)) {
    if (required && (fields.get(key) ?? null) === null) throw badRequest(`${key}: required`);
  }
  const out: Record<string, string | null> = {};
  for (const [key, { required, form }] of Object.entries(spec)) {
    out[key] = value(key, fields.get(key) ?? null, required, form);
  }
  return out as Values<S>;
}

function value(key: string, raw: unknown, required: boolean, form: Form): string | null {
  if (raw === null) return null;
  if (typeof raw !== 'string') throw invalid(key, 'must be text');
  const text = raw.trim();
  if (text === '') {
    if (required) throw invalid(key, 'must not be empty');
    return null;
  }
  if ([...text].length > MAX_FIELD_LENGTH) {
    throw invalid(key, `must be at most ${MAX_FIELD_LENGTH} characters`);
  }
  const problem = formProblem(text, form);
  if (problem) throw invalid(key, problem);
  return text;
}

function formProblem(text: string, form: Form): string | null {
  switch (form) {
    case 'line':
      return hiddenTextProblem(text);
    case 'text':
      // A description may run over several lines.
      return hiddenTextProblem(text.replace(/\r\n|[\r\n\t]/g, ' '));
    case 'url':
      return isHttpUrl(text) ? null : 'must be an http:// or https:// URL';
    case 'host': {
      const parsed = nameSchema.safeParse(text);
      return parsed.success ? null : `must be a host name: ${parsed.error.issues[0]?.message ?? 'not valid'}`;
    }
  }
}

/** An absolute http:// or https:// URL without hidden characters: links shown with deploys and changes. */
export function isHttpUrl(text: string): boolean {
  return !hiddenTextProblem(text) && httpUrlOf(text) !== null;
}
