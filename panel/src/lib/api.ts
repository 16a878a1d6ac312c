/** JSON API client: same-origin fetch with the session cookie; problem+json answers become ApiError. */

export class ApiError extends Error {
  readonly status: number;
  readonly title: string;
  readonly detail: string | undefined;
  readonly retryAfter: number | null;

  constructor(status: number, title: string, detail: string | undefined, retryAfter: number | null) {
    super(detail ? `${title}: ${detail}` : title);
    this.status = status;
    this.title = title;
    this.detail = detail;
    this.retryAfter = retryAfter;
  }

  /** A 422's `detail` reads `<field path>: <message>`; returns both, or null. */
  field(): { path: string; message: string } | null {
    if (this.status !== 422 || !this.detail) return null;
    // The path may hold any character (`headers.Bad Name`); the first ": " ends it.
    const match = /^(.+?): (.+)$/s.exec(this.detail);
    if (!match) return null;
    return { path: match[1]!.replace(/^check\./, ''), message: match[2]! };
  }

  /** One sentence for people: the detail when there is one, else the title. */
  get text(): string {
    const message = this.detail ?? this.title;
    return message.charAt(0).toUpperCase() + message.slice(1);
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

let onSignedOut: () => void = () => {};

/** Called when a request other than sign-in answers 401: the session ended, so the app shows sign-in. */
export function whenSignedOut(callback: () => void): void {
  onSignedOut = callback;
}

export async function api<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, 'Content-Type': 'application/json' };
  }
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, init);
  } catch {
    throw new ApiError(0, 'the server cannot be reached', undefined, null);
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (response.status === 401 && !path.startsWith('/auth/login')) onSignedOut();
  if (!response.ok) {
    const problem = (data ?? {}) as { title?: string; detail?: string };
    const retry = Number(response.headers.get('Retry-After'));
    throw new ApiError(
      response.status,
      problem.title ?? response.statusText ?? 'request failed',
      problem.detail,
      Number.isFinite(retry) && retry > 0 ? retry : null,
    );
  }
  return data as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => api<T>('POST', path, body ?? {});
export const put = <T>(path: string, body: unknown) => api<T>('PUT', path, body);
export const del = (path: string) => api<void>('DELETE', path);

export const enc = encodeURIComponent;
