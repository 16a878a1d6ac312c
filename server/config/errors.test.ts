import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfigText } from './load.ts';

/** How a bad mon.toml is reported: every problem at once, each with its path in the file. */

function errorOf(text: string): string {
  const result = loadConfigText(text, { env: {} });
  assert.equal(result.ok, false, 'expected the file to be rejected');
  return result.ok ? '' : result.error;
}

const check = (name: string, service: string, target: string) =>
  `[[check]]\nname = "${name}"\nservice = "${service}"\n${target}\n`;

test('a bad file reports the problems of all its sections at once, each with its path', () => {
  const text = `
trusted_proxies = ["nope"]
[server]
url = "ftp://mon.example.com"
[[service]]
name = "shop"
depends_on = ["db", "ghost"]
[[host]]
name = "web-1"
cpu = 150
${check('home', 'shop', 'url = "https://shop.example"\nevery = "5s"')}
${check('pg', 'db', 'tcp = "db:5432"\nevery = "10s"\ntimeout = "20s"')}
${check('shop', 'web', 'ping = "web.example"')}
${check('api', 'shop', `url = "\${API_URL}"`)}
[[alert]]
type = "telegram"
bot_token = "123:abc"
`;
  assert.deepEqual(errorOf(text).split('\n'), [
    'server.url: must be an http:// or https:// URL',
    'trusted_proxies[0]: must be an IP address or a CIDR range such as 10.0.0.0/8',
    // "db" is the service of check[1], which has an error of its own: not an unknown service.
    'service[0].depends_on[1]: unknown service "ghost"; name a [[service]] or the service of a [[check]] in this file',
    'host[0].cpu: must be a number from 1 to 100, or false',
    'check[0].every: must be at least 10s',
    'check[1].timeout: must not exceed every',
    'check[2].name: "shop" is also a service (service[0]); checks and services need different names',
    'check[3].url: environment variable API_URL is not set',
    'alert[0].chat_id: required for telegram alerts',
  ]);
});

test('tables left out for their errors keep their place in the paths of the others', () => {
  const text = [
    check('a', 's', 'ping = "h"\nevery = "1s"'),
    check('b', 's', 'ping = "h"'),
    check('b', 's', 'ping = "h"'),
    '[[service]]\nname = "x"\ntier = "gold"\n',
    '[[service]]\nname = "y"\nsites = ["y.example"]\n',
    '[[service]]\nname = "z"\nsites = ["y.example"]\n',
  ].join('');
  assert.deepEqual(
    errorOf(text)
      .split('\n')
      .map((line) => line.split(':')[0]),
    ['service[0].tier', 'service[2].sites[0]', 'check[0].every', 'check[2].name'],
  );
  assert.match(errorOf(text), /^service\[2\]\.sites\[0\]: site y\.example already belongs to service\[1\]$/m);
  assert.match(errorOf(text), /^check\[2\]\.name: check\[1\] already has the check name "b"$/m);
});

test('at most 20 problems are listed, then how many more there are', () => {
  const text = Array.from({ length: 23 }, (_, i) => check(`c${i}`, 's', 'ping = "h"\nevery = "1s"')).join('');
  const lines = errorOf(text).split('\n');
  assert.equal(lines.length, 21);
  assert.equal(lines[19], 'check[19].every: must be at least 10s');
  assert.equal(lines[20], '… and 3 more');
});
