import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultArgon2, PasswordHasher } from './passwords.ts';
import { fastArgon2 } from './test-helpers.ts';

test('argon2id with the real parameters: PHC string, right and wrong password', async () => {
  const hasher = new PasswordHasher();
  const phc = await hasher.hash('correct horse battery');
  const { memory, passes, parallelism } = defaultArgon2;
  assert.match(
    phc,
    new RegExp(
      `^\\$argon2id\\$v=19\\$m=${memory},t=${passes},p=${parallelism}\\$[A-Za-z0-9+/]{22}\\$[A-Za-z0-9+/]{43}$`,
    ),
  );
  assert.equal(await hasher.verify('correct horse battery', phc), true);
  assert.equal(await hasher.verify('correct horse batterY', phc), false);
  // Two hashes of one password differ by their salt.
  assert.notEqual(await hasher.hash('correct horse battery'), phc);
});

test('a hash keeps its own parameters: changing defaults does not lock people out', async () => {
  const phc = await new PasswordHasher({ params: fastArgon2 }).hash('long enough password');
  assert.equal(await new PasswordHasher().verify('long enough password', phc), true);
});

test('unknown accounts and unreadable hashes never match but still cost a hash', async () => {
  const hasher = new PasswordHasher({ params: fastArgon2 });
  assert.equal(await hasher.verify('anything at all', null), false);
  assert.equal(await hasher.verify('anything at all', 'plain text'), false);
});

test('a third simultaneous password check answers 503 with Retry-After', async () => {
  const hasher = new PasswordHasher();
  const phc = await hasher.hash('correct horse battery');
  const results = await Promise.allSettled([
    hasher.verify('correct horse battery', phc),
    hasher.verify('correct horse battery', phc),
    hasher.verify('correct horse battery', phc),
  ]);
  assert.equal(results[0]!.status, 'fulfilled');
  assert.equal(results[1]!.status, 'fulfilled');
  assert.equal(results[2]!.status, 'rejected');
  const problem = (results[2] as PromiseRejectedResult).reason;
  assert.equal(problem.status, 503);
  assert.ok(problem.retryAfter >= 1);
  // Once the first two are done, checks run again.
  assert.equal(await hasher.verify('correct horse battery', phc), true);
});
