/**
 * Errors answered as application/problem+json (RFC 9457). Throw a Problem anywhere in a route;
 * the app's error handler turns it into the response.
 */
export class Problem extends Error {
  readonly status: number;
  readonly title: string;
  readonly detail: string | undefined;
  readonly retryAfter: number | undefined;

  constructor(status: number, title: string, detail?: string, retryAfter?: number) {
    super(detail ? `${title}: ${detail}` : title);
    this.status = status;
    this.title = title;
    this.detail = detail;
    this.retryAfter = retryAfter;
  }

  body(): { type: string; status: number; title: string; detail?: string } {
    return {
      type: 'about:blank',
      status: this.status,
      title: this.title,
      ...(this.detail === undefined ? {} : { detail: this.detail }),
    };
  }
}

export const badRequest = (detail: string) => new Problem(400, 'bad request', detail);
/** 422: `field` names the offending field, like `check.everyMs` or `expect[0].status`. */
export const invalid = (field: string, message: string) =>
  new Problem(422, 'invalid value', field ? `${field}: ${message}` : message);
export const unauthorized = () => new Problem(401, 'sign-in required');
export const forbidden = (detail?: string) => new Problem(403, 'forbidden', detail);
export const adminsOnly = () => new Problem(403, 'only admins can do this');
export const notFound = (detail?: string) => new Problem(404, 'not found', detail);
export const conflict = (detail: string) => new Problem(409, 'conflict', detail);
export const tooMany = (retryAfterSeconds: number, detail?: string) =>
  new Problem(429, 'too many requests', detail, retryAfterSeconds);
/**
 * The 429 of a flood, made once per Retry-After value: a flood asks for thousands a second, and each
 * Problem is an Error with a stack to capture.
 */
export function tooManyOnce(detail: string): (retryAfterSeconds: number) => Problem {
  const made = new Map<number, Problem>();
  return (retryAfterSeconds) => {
    let problem = made.get(retryAfterSeconds);
    if (!problem) {
      problem = tooMany(retryAfterSeconds, detail);
      made.set(retryAfterSeconds, problem);
    }
    return problem;
  };
}
export const unavailable = (retryAfterSeconds: number, detail?: string) =>
  new Problem(503, 'service unavailable', detail, retryAfterSeconds);
