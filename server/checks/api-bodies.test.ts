import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Any, checkServer } from './testkit.ts';

/** Check bodies the API refuses with 422 naming the field, storing nothing. */

const web = { name: 'home', service: 'shop', kind: 'http', target: 'http://127.0.0.1:9/', everyMs: 10_000 };

test('bodies that cannot be sent or shown as written answer 422 naming the field, and change nothing', async (t) => {
  const { server, inject } = await checkServer();
  t.after(() => server.dispose());
  const refused = async (body: object, detail: RegExp) => {
    const res = await inject('POST', '/api/v1/checks', body);
    assert.equal(res.status, 422, JSON.stringify(body));
    assert.match((res.body as Any).detail, detail, JSON.stringify(body));
  };
  await refused(
    { ...web, target: 'http://127.0.0.1:9/a\r\nHost: other' },
    /^target: must not contain control/,
  );
  await refused({ ...web, headers: { Host: 'other.example' } }, /^headers\.Host: cannot be set/);
  await refused(
    { ...web, headers: { 'Transfer-Encoding': 'chunked' } },
    /^headers\.Transfer-Encoding: cannot be set/,
  );
  await refused({ ...web, headers: { 'X-Note': 'a\nb' } }, /^headers\.X-Note: must not contain line breaks/);
  await refused({ ...web, headers: { 'X-Note': '€' } }, /^headers\.X-Note: must contain only Latin-1/);
  await refused({ ...web, name: '\u200B' }, /^name: must not contain control characters/);
  await refused({ ...web, name: 'a\uD800' }, /^name: must be valid Unicode text/);
  await refused({ ...web, service: '\u3164' }, /^service: must contain a visible character/);
  await refused({ ...web, service: '   ' }, /^service: must not be empty/);
  await refused({ ...web, extra: true }, /^extra: unknown field$/);
  assert.deepEqual((await inject('GET', '/api/v1/services')).body, { services: [] });

  const res = await inject('POST', '/api/v1/checks', web);
  assert.equal(res.status, 201);
  const { id } = res.body as Any;
  const put = await inject('PUT', `/api/v1/checks/${id}`, { ...web, headers: { Connection: 'close' } });
  assert.equal(put.status, 422);
  assert.match((put.body as Any).detail, /^headers\.Connection: cannot be set/);
  assert.deepEqual((await inject('GET', `/api/v1/checks/${id}`)).body, {
    id,
    managed: false,
    hostDefined: false,
    input: web,
  });
});

test('a link-local or cloud metadata target needs allowLinkLocal', async (t) => {
  const { server, inject } = await checkServer();
  t.after(() => server.dispose());
  const metadata = { ...web, target: 'http://169.254.169.254/latest/meta-data/' };
  const res = await inject('POST', '/api/v1/checks', metadata);
  assert.equal(res.status, 422);
  assert.equal(
    (res.body as Any).detail,
    'target: refused 169.254.169.254: a link-local address, where cloud metadata services answer; set allowLinkLocal to true to check it',
  );
  const allowed = await inject('POST', '/api/v1/checks', { ...metadata, allowLinkLocal: true });
  assert.equal(allowed.status, 201);
  const read = await inject('GET', `/api/v1/checks/${(allowed.body as Any).id}`);
  assert.equal((read.body as Any).input.allowLinkLocal, true);
  const internal = await inject('POST', '/api/v1/checks', { ...web, name: 'db', target: 'http://10.0.0.5/' });
  assert.equal(internal.status, 201, 'private ranges need nothing');
});
