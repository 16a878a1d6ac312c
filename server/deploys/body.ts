import type { FastifyRequest } from 'fastify';
import { badRequest } from '../problem.ts';

/**
 * Request bodies of the deploy and change API as named fields: JSON when the content type says
 * `application/json`, form fields otherwise (URL-encoded, or `multipart/form-data` as `curl -F`
 * sends). A field given twice or a file part is a 400, never a guess.
 */
export async function readFields(
  body: Buffer,
  contentType: string | undefined,
): Promise<Map<string, unknown>> {
  const type = mediaType(contentType);
  if (type === 'application/json') return jsonFields(body);
  if (type === 'multipart/form-data') return multipartFields(body, contentType ?? '');
  return urlEncodedFields(body);
}

/** The media type without parameters, lower case (`application/json; charset=utf-8` → `application/json`). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The body as UTF-8 text; bytes that are not UTF-8 make the body unreadable. */
export function utf8(body: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw badRequest('the body is not UTF-8 text');
  }
}

function jsonFields(body: Buffer): Map<string, unknown> {
  const text = utf8(body);
  if (text.trim() === '') throw badRequest('the body is empty');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('the body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest('the body must be a JSON object');
  }
  return new Map(Object.entries(value));
}

function urlEncodedFields(body: Buffer): Map<string, unknown> {
  const text = utf8(body);
  // `curl -d '{...}'` sends JSON as a form unless told otherwise.
  if (text.trimStart().startsWith('{')) {
    throw badRequest('the body looks like JSON: send it with Content-Type: application/json');
  }
  const fields = new Map<string, unknown>();
  for (const [key, value] of new URLSearchParams(text)) add(fields, key, value);
  return fields;
}

async function multipartFields(body: Buffer, contentType: string): Promise<Map<string, unknown>> {
  let form: FormData;
  try {
    form = await new Response(Uint8Array.from(body), { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw badRequest('the body is not readable multipart/form-data');
  }
  const fields = new Map<string, unknown>();
  for (const [key, value] of form) {
    if (typeof value !== 'string') throw badRequest(`${key}: must be a text field, not a file`);
    add(fields, key, value);
  }
  return fields;
}

function add(fields: Map<string, unknown>, key: string, value: string): void {
  if (fields.has(key)) throw badRequest(`${key}: give it once`);
  fields.set(key, value);
}

/** The bytes of a request's body (the routes read bodies as bytes); a request without one has none. */
export function rawBody(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
}
