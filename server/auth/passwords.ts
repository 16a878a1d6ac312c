import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { unavailable } from '../problem.ts';

/** argon2id cost: 32 MiB, 3 passes, 1 lane (about 75 ms on a small server). */
export type Argon2Params = { memory: number; passes: number; parallelism: number };
export const defaultArgon2: Argon2Params = { memory: 32_768, passes: 3, parallelism: 1 };

export const minPasswordLength = 10;
export const maxPasswordLength = 1000;

/** A new password: long enough to resist guessing, short enough to hash cheaply. */
export const newPasswordSchema = z
  .string('must be a string')
  .refine((p) => [...p].length >= minPasswordLength, `must be at least ${minPasswordLength} characters`)
  .refine((p) => p.length <= maxPasswordLength, `must be at most ${maxPasswordLength} characters`);

/** A password being checked: any non-empty string up to the maximum length. */
export const givenPasswordSchema = z
  .string('must be a string')
  .min(1, 'must not be empty')
  .max(maxPasswordLength, `must be at most ${maxPasswordLength} characters`);

const tagLength = 32;

function derive(password: string, salt: Buffer, p: Argon2Params): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    argon2(
      'argon2id',
      {
        message: password,
        nonce: salt,
        parallelism: p.parallelism,
        tagLength,
        memory: p.memory,
        passes: p.passes,
      },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');

/** `$argon2id$v=19$m=32768,t=3,p=1$<salt>$<hash>` (PHC string format, unpadded base64). */
function format(salt: Buffer, hash: Buffer, p: Argon2Params): string {
  return `$argon2id$v=19$m=${p.memory},t=${p.passes},p=${p.parallelism}$${b64(salt)}$${b64(hash)}`;
}

function parse(phc: string): { salt: Buffer; hash: Buffer; params: Argon2Params } | null {
  const m = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(phc);
  if (!m) return null;
  return {
    params: { memory: Number(m[1]), passes: Number(m[2]), parallelism: Number(m[3]) },
    salt: Buffer.from(m[4]!, 'base64'),
    hash: Buffer.from(m[5]!, 'base64'),
  };
}

/**
 * Hashes and verifies passwords with argon2id. At most `concurrency` hashes run at once (SPEC: 2);
 * one more answers 503 with Retry-After instead of queueing, so a burst cannot pile up memory.
 */
export class PasswordHasher {
  private readonly params: Argon2Params;
  private readonly concurrency: number;
  private running = 0;
  private dummy: Promise<string> | undefined;

  constructor(options: { params?: Argon2Params; concurrency?: number } = {}) {
    this.params = options.params ?? defaultArgon2;
    this.concurrency = options.concurrency ?? 2;
  }

  hash(password: string): Promise<string> {
    return this.limited(() => this.hashNow(password));
  }

  /** True when `password` matches `phc`. A null `phc` (unknown account) still costs one hash. */
  verify(password: string, phc: string | null): Promise<boolean> {
    return this.limited(async () => {
      const parsed = phc ? parse(phc) : null;
      if (!parsed) {
        // Same work as a real check, so response time does not reveal whether the account exists.
        this.dummy ??= this.hashNow('not a password');
        const fake = parse(await this.dummy)!;
        await derive(password, fake.salt, fake.params);
        return false;
      }
      const key = await derive(password, parsed.salt, parsed.params);
      return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
    });
  }

  private async hashNow(password: string): Promise<string> {
    const salt = randomBytes(16);
    return format(salt, await derive(password, salt, this.params), this.params);
  }

  private async limited<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) throw unavailable(1, 'too many password checks at once');
    this.running++;
    try {
      return await fn();
    } finally {
      this.running--;
    }
  }
}
