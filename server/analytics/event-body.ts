import { type TrackerEvent, trackerEventSchema } from '../../protocol/analytics.ts';
import { fieldIssue } from '../../protocol/messages.ts';
import { formatPath } from '../config/paths.ts';
import { Problem } from '../problem.ts';
import { parseUrl } from './sources.ts';

const malformed = (detail: string) => new Problem(400, 'bad request', detail);

/**
 * Reads the body of `POST /e`: one tracker event as JSON (sent as `text/plain`, so no preflight).
 * A body that is not one answers 400 naming the field; `page` is the event's page address.
 */
export function readTrackerEvent(body: unknown): { event: TrackerEvent; page: URL } {
  if (typeof body !== 'string' || body.length === 0) throw malformed('the body is empty');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw malformed('the body is not valid JSON');
  }
  const parsed = trackerEventSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const { path, message } = issue ? fieldIssue(issue) : { path: [], message: '' };
    if (path.length === 0) throw malformed('the body must be a tracker event object');
    throw malformed(`${formatPath(path)}: ${message}`);
  }
  const page = parseUrl(parsed.data.u);
  if (!page || (page.protocol !== 'http:' && page.protocol !== 'https:')) {
    throw malformed('u: must be an http:// or https:// URL');
  }
  return { event: parsed.data, page };
}
