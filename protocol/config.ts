/** Read shapes of the JSON API's configuration-file reads, shared by the server, the panel and the tests. */

/**
 * `GET /api/v1/config/status`: the current mon.toml error (one line per problem), or null; and which
 * configuration is in force: the file's, the last good one (the file has an error, at a save or since
 * the start), or an empty one (the file was bad at start and no earlier file loads).
 */
export type ConfigStatus = { error: string | null; inForce: 'file' | 'lastGood' | 'empty' };

/** An environment variable the exported text refers to; never its value. */
export type SecretRef = { name: string; key: string; about: string };

/** `GET /api/v1/config/export`: the whole configuration as mon.toml text, and the variables it needs. */
export type ConfigExport = { toml: string; secrets: SecretRef[] };
