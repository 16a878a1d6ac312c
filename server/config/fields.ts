import { z } from 'zod';

/** Value schemas that several sections of mon.toml share; a leaf module. */

export const DAY = 86_400_000;

/** A non-empty trimmed string of at most `max` characters. */
export const text = (max = 2048) => z.string().trim().min(1, 'must not be empty').max(max);

export const httpUrl = z
  .string()
  .trim()
  .refine((v) => {
    try {
      const url = new URL(v);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL');
