import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startServerProcess } from '../../test/server-process.ts';
import { tempDir } from '../testing.ts';

/** Starts `node server/main.ts`, waits for the setup notice on standard output, stops the server. */
async function firstStart(env: Record<string, string>) {
  const data = tempDir();
  const server = await startServerProcess({ MON_DATA_DIR: data.dir, ...env });
  const end = Date.now() + 10_000;
  const framed = () => (server.output().match(/^-{72}$/gm) ?? []).length === 2;
  while (!framed() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  server.child.kill('SIGTERM');
  await once(server.child, 'exit');
  return { ...server, dir: data.dir, remove: data.remove };
}

test('first start: the setup URL and token are printed for a person, never in the JSON log', async (t) => {
  const start = await firstStart({});
  t.after(start.remove);
  const token = readFileSync(join(start.dir, 'setup-token'), 'utf8').trim();
  const notice = start.output();
  assert.ok(notice.includes(`    ${start.address}/setup\n`), notice);
  assert.ok(notice.includes(`    ${token}\n`), notice);
  assert.ok(notice.includes(join(start.dir, 'setup-token')), 'names the file that keeps the token');
  assert.match(notice, /^-{72}\n[\s\S]*\n-{72}\n$/, 'framed by a rule above and below');

  const logLines = start.log().trim().split('\n');
  for (const line of logLines) assert.doesNotThrow(() => JSON.parse(line), `a JSON log line: ${line}`);
  assert.ok(!start.log().includes(token), 'the token is not in the log');
  assert.ok(logLines.some((line) => JSON.parse(line).message.startsWith('no account yet')));
});

test('a token from MON_SETUP_TOKEN is not repeated; 0.0.0.0 is shown as localhost', async (t) => {
  const start = await firstStart({ MON_SETUP_TOKEN: 'operator-chosen-token', MON_LISTEN: '0.0.0.0:0' });
  t.after(start.remove);
  const port = new URL(start.address).port;
  assert.ok(start.output().includes(`    http://localhost:${port}/setup\n`), start.output());
  assert.ok(start.output().includes('MON_SETUP_TOKEN'));
  assert.ok(!`${start.output()}${start.log()}`.includes('operator-chosen-token'));
});

test('the setup URL is on [server] url when mon.toml sets it', async (t) => {
  const data = tempDir();
  t.after(data.remove);
  const config = join(data.dir, 'mon.toml');
  writeFileSync(config, '[server]\nurl = "https://mon.example.com/"\n');
  const start = await firstStart({ MON_CONFIG: config });
  t.after(start.remove);
  assert.ok(start.output().includes('    https://mon.example.com/setup\n'), start.output());
});
