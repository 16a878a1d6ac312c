/** Read shapes of the JSON API's configuration-file reads, shared by the server, the panel and the tests. */

/** `GET /api/v1/config/status`: the current mon.toml error (one line per problem), or null. */
export type ConfigStatus = { error: string | null };

/** An environment variable the exported text refers to; never its value. */
export type SecretRef = { name: string; key: string; about: string };

/** `GET /api/v1/config/export`: the whole configuration as mon.toml text, and the variables it needs. */
export type ConfigExport = { toml: string; secrets: SecretRef[] };
