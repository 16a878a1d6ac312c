import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import type { TokensList } from '../protocol/accounts.ts';
import type { Created } from '../protocol/reads.ts';
import { tempDir } from '../server/testing.ts';
import { startServerProcess } from './server-process.ts';

/**
 * Durability: a 2xx means committed. The server is killed with SIGKILL while token creations are
 * being acknowledged; after a restart every acknowledged token is there.
 */
test('every write acknowledged before a SIGKILL is present after restart', async () => {
  const data = tempDir();
  const env = { MON_DATA_DIR: data.dir, MON_SETUP_TOKEN: 'setup-token-for-the-crash-test' };
  const first = await startServerProcess(env);
  const origin = first.address;
  const setup = await fetch(`${origin}/api/v1/auth/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({
      token: env.MON_SETUP_TOKEN,
      email: 'admin@example.com',
      password: 'a long enough password',
    }),
  });
  assert.equal(setup.status, 201);
  const cookie = (setup.headers.get('set-cookie') ?? '').split(';')[0]!;
  assert.match(cookie, /^mon_session=/);

  const acknowledged: string[] = [];
  let killed = false;
  const worker = async (w: number) => {
    for (let i = 0; !killed && i < 2000; i++) {
      try {
        const r = await fetch(`${origin}/api/v1/tokens`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin, cookie },
          body: JSON.stringify({ scope: 'read', label: `w${w}-${i}` }),
        });
        if (r.status === 201) acknowledged.push(((await r.json()) as Created).id);
      } catch {
        return; // the server is gone
      }
    }
  };
  const workers = Array.from({ length: 16 }, (_, w) => worker(w));
  while (acknowledged.length < 300) await new Promise((r) => setTimeout(r, 5));
  first.child.kill('SIGKILL');
  killed = true;
  await once(first.child, 'exit');
  await Promise.all(workers);
  const acked = [...acknowledged];

  const second = await startServerProcess(env);
  const login = await fetch(`${second.address}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: second.address },
    body: JSON.stringify({ email: 'admin@example.com', password: 'a long enough password' }),
  });
  assert.equal(login.status, 200);
  const session = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const list = await fetch(`${second.address}/api/v1/tokens`, { headers: { cookie: session } });
  const { tokens } = (await list.json()) as TokensList;
  const stored = new Set(tokens.map((t) => t.id));
  const lost = acked.filter((id) => !stored.has(id));
  assert.equal(lost.length, 0, `${lost.length} of ${acked.length} acknowledged writes were lost`);
  second.child.kill('SIGTERM');
  await once(second.child, 'exit');
  data.remove();
});
