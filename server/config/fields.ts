import { z } from 'zod';
import { httpUrlOf } from '../../protocol/targets.ts';

/** Value schemas that several sections of mon.toml share; a leaf module. */

/** A non-empty trimmed string of at most `max` characters. */
export const text = (max = 2048) => z.string().trim().min(1, 'must not be empty').max(max);

export const httpUrl = z
  .string()
  .trim()
  .refine((v) => httpUrlOf(v) !== null, 'must be an http:// or https:// URL');
