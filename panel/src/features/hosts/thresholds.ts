import type { HostAlertsBody } from '../../../../protocol/hosts.ts';
import { ApiError } from '../../lib/api.ts';
import { type FieldErrors, Invalid } from '../../lib/form.ts';
import { mountsOf, thresholdFields } from './describe.ts';

/** The form's paths: the five limits and `ignoreMounts`. */
export const thresholdPaths = [...thresholdFields.map((f) => f.key), 'ignoreMounts'] as const;

/**
 * The thresholds form as the body of `PUT /hosts/{name}/alerts`: an empty limit turns its alert off.
 * Throws Invalid naming the fields that are not numbers or not mount paths; the server judges the rest.
 */
export function alertsBody(data: FormData): HostAlertsBody {
  const errors: FieldErrors = {};
  const limit = (key: string): number | null => {
    const text = String(data.get(key) ?? '').trim();
    if (text === '') return null;
    const value = Number(text);
    if (!Number.isFinite(value)) errors[key] = 'must be a number, or empty to turn the alert off';
    return value;
  };
  const body: HostAlertsBody = {
    cpu: limit('cpu'),
    memory: limit('memory'),
    swap: limit('swap'),
    disk: limit('disk'),
    temperature: limit('temperature'),
    ignoreMounts: mountsOf(String(data.get('ignoreMounts') ?? '')),
  };
  const relative = body.ignoreMounts.find((m) => !m.startsWith('/'));
  if (relative !== undefined)
    errors.ignoreMounts = `${relative}: must be an absolute mount path such as /boot`;
  if (Object.keys(errors).length > 0) throw new Invalid(errors);
  return body;
}

/** A server 422 about one mount (`ignoreMounts[1]: …`) belongs to the mounts field, naming the mount. */
export function mountError(error: unknown, mounts: readonly string[]): Invalid | null {
  const named = error instanceof ApiError ? error.field() : null;
  const match = named && /^ignoreMounts(?:\[(\d+)\])?$/.exec(named.path);
  if (!named || !match) return null;
  const mount = match[1] === undefined ? undefined : mounts[Number(match[1])];
  return new Invalid({ ignoreMounts: mount ? `${mount}: ${named.message}` : named.message });
}
