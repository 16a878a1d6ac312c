import { createHash, randomBytes } from 'node:crypto';

/**
 * Heartbeat ping tokens (`btp_…`). Only their SHA-256 is stored; mon.toml gives a token as
 * `ping_token`, or as the stored hash in `ping_token_hash = "sha256:<hex>"` (what the export writes,
 * so that a heartbeat keeps its URL without the export revealing a usable token).
 */
export const newPingToken = () => `btp_${randomBytes(16).toString('hex')}`;

/** The stored form of a token: its SHA-256 in lowercase hex. */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

const fileHashPrefix = 'sha256:';

/** `sha256:<64 hex digits>`: the form of `ping_token_hash` in mon.toml. */
export const fileHashPattern = /^sha256:[0-9a-f]{64}$/;

/** A stored hash as mon.toml's `ping_token_hash`, and back. */
export const hashForFile = (hash: string) => `${fileHashPrefix}${hash}`;
export const hashFromFile = (text: string) => text.slice(fileHashPrefix.length);
