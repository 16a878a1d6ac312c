import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exportConfig } from '../config/export.ts';
import { loadConfigText } from '../config/load.ts';

/** Checks of mon.toml follow the rules of API check bodies; errors name the file's path. */

const errorOf = (text: string, env: Record<string, string> = {}) => {
  const result = loadConfigText(text, { env });
  assert.equal(result.ok, false, 'expected the file to be rejected');
  return result.ok ? '' : result.error;
};
const configOf = (text: string, env: Record<string, string> = {}) => {
  const result = loadConfigText(text, { env });
  if (!result.ok) assert.fail(result.error);
  return result.config;
};
const check = (lines: string) => `[[check]]\nname = "home"\nservice = "shop"\n${lines}\n`;

test('a target with a line break or another control character is a load error naming its key', () => {
  assert.equal(
    errorOf(check('url = "http://127.0.0.1/a\\r\\nHost: evil"')),
    'check[0].url: must not contain control characters, line breaks or invisible formatting',
  );
  assert.match(
    errorOf(check('tcp = "db\\u0000.internal:5432"')),
    /^check\[0\]\.tcp: must not contain control/,
  );
});

test('headers that cannot be sent as written are load errors naming the header', () => {
  assert.equal(
    errorOf(check('url = "https://x.io"\nheaders = { Host = "other.example" }')),
    'check[0].headers.Host: cannot be set: mon writes the framing and connection headers of a request itself',
  );
  assert.match(
    errorOf(check('url = "https://x.io"\nheaders = { "Transfer-Encoding" = "chunked" }')),
    /^check\[0\]\.headers\.Transfer-Encoding: cannot be set/,
  );
  assert.match(
    errorOf(check('url = "https://x.io"\nheaders = { X-Price = "5 €" }')),
    /^check\[0\]\.headers\.X-Price: must contain only Latin-1 characters/,
  );
  assert.match(
    errorOf(check('url = "https://x.io"\nheaders = { X-Note = "a\\u0007b" }')),
    /^check\[0\]\.headers\.X-Note: must not contain line breaks or other control characters/,
  );
  assert.equal(
    errorOf(check('url = "https://x.io"\nheaders = { Accept = "a", accept = "b" }')),
    'check[0].headers.accept: given twice (header names ignore case)',
  );
});

test('names with nothing visible or with hidden characters are load errors naming the key', () => {
  const named = (name: string, service = 'shop') =>
    `[[check]]\nname = "${name}"\nservice = "${service}"\nurl = "https://x.io"\n`;
  assert.equal(
    errorOf(named('\\u200B')),
    'check[0].name: must not contain control characters, line breaks or invisible formatting',
  );
  assert.equal(
    errorOf(named('home', '\\u3164')),
    'check[0].service: must contain a visible character (a letter, digit or sign)',
  );
  assert.match(errorOf('[[service]]\nname = "a\\u2028b"\n'), /^service\[0\]\.name: must not contain control/);
});

test('link-local targets need allow_link_local, which the export keeps', () => {
  assert.equal(
    errorOf(check('url = "http://169.254.169.254/latest/meta-data/"')),
    'check[0].url: refused 169.254.169.254: a link-local address, where cloud metadata services answer; set allow_link_local to true to check it',
  );
  assert.match(
    errorOf(check('ping = "metadata.google.internal"')),
    /^check\[0\]\.ping: refused metadata\.google\.internal/,
  );
  assert.equal(
    errorOf(check('dns = "example.com"\nallow_link_local = true')),
    'check[0].allow_link_local: only http, tcp and ping checks connect to their target',
  );
  const text = check('url = "http://169.254.169.254/latest/meta-data/"\nallow_link_local = true');
  const config = configOf(text);
  assert.equal(config.checks[0]?.body.allowLinkLocal, true);
  assert.match(exportConfig(config, new Map(), []).toml, /allow_link_local = true/);
});

test('[checks] api_env lists environment variable names; the export keeps it', () => {
  const config = configOf('[checks]\napi_env = ["STATUS_TOKEN", "SHOP_KEY", "STATUS_TOKEN"]\n');
  assert.deepEqual(config.checkSettings.apiEnv, ['STATUS_TOKEN', 'SHOP_KEY']);
  assert.match(
    exportConfig(config, new Map(), []).toml,
    /\[checks\]\napi_env = \[ "STATUS_TOKEN", "SHOP_KEY" \]/,
  );
  assert.equal(
    errorOf('[checks]\napi_env = ["STATUS-TOKEN"]\n'),
    'checks.api_env[0]: must be the name of an environment variable: letters, digits and _',
  );
  assert.equal(errorOf('[checks]\napi_envs = []\n'), 'checks.api_envs: unknown key');
  assert.equal(
    errorOf('[[checks]]\nname = "home"\n'),
    'checks: must be a table: [checks] holds settings of all checks, each check is a [[check]]',
  );
  assert.deepEqual(configOf('').checkSettings.apiEnv, []);
});

test('every refusal of a [[check]] is in mon words, never the schema library default', () => {
  const libraryWords = /: (Invalid|Too (big|small)|Unrecognized|Expected|Required)\b|expected \w+, received/;
  for (const lines of [
    'url = "https://x.io"\nmethod = "GRAB"',
    'url = 5',
    `url = "https://x.io/${'x'.repeat(3000)}"`,
    'url = "https://x.io"\nheaders = { X = 5 }',
    'url = "https://x.io"\nexpect = [{ status = 700 }]',
    'url = "https://x.io"\nexpect = [{ status = 200, else = "later" }]',
    'url = "https://x.io"\nexpect = [{ body_contains = "" }]',
    'url = "https://x.io"\nexpect = [{ json = "$.a", equals = [1] }]',
    'url = "https://x.io"\nexpect = "all"',
    'url = "https://x.io"\nallow_link_local = "yes"',
    'every = "1m"\ntimezone = 5',
    'cron = "0 3 * * *"\ngrace = "8d"',
  ]) {
    const error = errorOf(check(lines));
    assert.doesNotMatch(error, libraryWords, lines);
  }
});
