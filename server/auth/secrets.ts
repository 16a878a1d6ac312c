import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, base64url: session ids, API tokens (after their prefix), setup tokens, OIDC flow ids. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A 16-character lowercase hexadecimal public id. */
export function publicId(): string {
  return randomBytes(8).toString('hex');
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Compares two secrets in constant time by comparing their SHA-256 digests (equal lengths always). */
export function secretEquals(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}
