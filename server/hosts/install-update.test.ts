import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { agentFileText } from '../../agent/build.ts';
import { makePki, type TestPki } from '../../runners/fixtures/certs.ts';
import { type Receiver, startReceiver } from '../http/fixtures/receiver.ts';
import { tempDir } from '../testing.ts';
import { TOKEN as token } from './fixtures/install-shell.ts';
import { installCommands, shellQuote } from './install.ts';

/**
 * The systemd install updates its agent at each start: the unit downloads the agent the server serves
 * before it runs it (`ExecStartPre`), and keeps the last good copy when the server cannot be reached
 * or answers something else. The snippet and the unit's command run for real with sh and Node, in the
 * test's directory.
 */

const run = promisify(execFile);
const work = tempDir('mon-install-update-');
const root = join(work.dir, 'root');
const bin = join(work.dir, 'bin');
let receiver: Receiver;
let pki: TestPki;
/** The agent file the stand-in server serves. */
let served = '';
/** An agent file as agent/build.ts makes one, whose code prints `label`. */
const agentFile = (label: string) => agentFileText(`console.log(${JSON.stringify(label)})\n`).text;
before(async () => {
  pki = makePki();
  receiver = await startReceiver();
  receiver.answer = (request) =>
    request.path === '/agent/v1/agent.mjs'
      ? { status: 200, body: served, headers: { 'content-type': 'text/javascript' } }
      : { status: 404 };
  mkdirSync(bin, { recursive: true });
  mkdirSync(join(root, 'etc/systemd/system'), { recursive: true });
  // systemctl as the snippet uses it: nothing runs; the test runs the unit's commands itself.
  writeFileSync(join(bin, 'systemctl'), '#!/bin/sh\ncase "$1" in is-active) exit 3 ;; esac\n');
  chmodSync(join(bin, 'systemctl'), 0o755);
});
after(async () => {
  await receiver.close();
  pki.dispose();
  work.remove();
});

const PATH = `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`;
/** Every path the snippet writes, under the test's directory. */
const rooted = (text: string) =>
  text.replace(
    /\/(etc\/mon-agent|etc\/systemd\/system|usr\/local\/lib\/mon-agent|var\/lib\/mon-agent)\b/g,
    `${root}/$1`,
  );
const agentPath = () => join(root, 'usr/local/lib/mon-agent/mon-agent.mjs');
const envFile = () => join(root, 'etc/mon-agent/env');
const unitText = () => readFileSync(join(root, 'etc/systemd/system/mon-agent.service'), 'utf8');

/**
 * The unit's `ExecStartPre` as systemd runs it: with the settings file's variables, its failure
 * ignored (the `-`) and the agent started after it either way.
 */
async function startPre(): Promise<{ status: number; stderr: string }> {
  const line = /^ExecStartPre=(.*)$/m.exec(unitText())?.[1];
  assert.ok(line?.startsWith('-'), 'a failed download does not stop the start');
  if (!line) throw new Error('no ExecStartPre');
  const command = `set -a; . ${shellQuote(envFile())}; set +a; exec ${line.slice(1)}`;
  try {
    const { stderr } = await run('/bin/sh', ['-c', command], { env: { PATH }, timeout: 40_000 });
    return { status: 0, stderr };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { status: failed.code, stderr: failed.stderr };
  }
}

/** The agent the unit's ExecStart runs: what it prints. */
async function startAgent(): Promise<string> {
  const line = /^ExecStart=(.*)$/m.exec(unitText())?.[1];
  assert.ok(line);
  const { stdout } = await run('/bin/sh', ['-c', line], { env: { PATH } });
  return stdout;
}

/** Points the settings file at another server, as an operator's edit would. */
function serverIs(url: string, extra = '') {
  writeFileSync(envFile(), `MON_SERVER=${shellQuote(url)}\nMON_TOKEN=${shellQuote(token)}\n${extra}`);
}

test('the systemd unit downloads the served agent before each start: a new build replaces the file; with the server down, or a page that is not the agent, the last good copy runs', async () => {
  served = agentFile('build a');
  const snippet = rooted(installCommands({ serverUrl: receiver.url, token, hostName: 'web-1' }).systemd);
  await run('/bin/sh', ['-c', snippet], { env: { PATH } });
  assert.equal(readFileSync(agentPath(), 'utf8'), served, 'the install downloaded the agent');
  assert.match(unitText(), /^ExecStartPre=-\S+ \S+\/fetch-agent\.cjs \S+\/mon-agent\.mjs$/m);
  assert.ok(
    unitText().indexOf('ExecStartPre=') < unitText().indexOf('ExecStart='),
    'the download comes before the agent starts',
  );

  // mon was upgraded: the next start (systemctl restart mon-agent) runs its agent.
  served = agentFile('build b');
  assert.deepEqual(await startPre(), { status: 0, stderr: '' });
  assert.equal(await startAgent(), 'build b\n');

  // The server is down (a host booting before mon): the download fails, the last copy stays and runs.
  serverIs('http://127.0.0.1:1');
  const down = await startPre();
  assert.notEqual(down.status, 0);
  assert.match(
    down.stderr,
    /^mon: cannot download the agent: connect ECONNREFUSED 127\.0\.0\.1:1; the agent file there stays as it was$/m,
  );
  assert.equal(await startAgent(), 'build b\n');

  // A 200 that is not mon's agent (a proxy's maintenance page) does not replace it.
  serverIs(receiver.url);
  served = '<html><body>Down for maintenance</body></html>';
  const page = await startPre();
  assert.notEqual(page.status, 0);
  assert.match(page.stderr, /the answer is not a mon agent file/);
  assert.equal(await startAgent(), 'build b\n');
  assert.deepEqual(
    readdirSync(dirname(agentPath())).sort(),
    ['fetch-agent.cjs', 'mon-agent.mjs'],
    'no half file is left',
  );
});

test("the unit's download verifies the server's certificate as the agent does: trusted with MON_CA from the settings file, refused without it", async () => {
  const leaf = pki.leaf(30);
  const server = https.createServer(leaf, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(agentFile('build c'));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const before = readFileSync(agentPath(), 'utf8');
    serverIs(url);
    const refused = await startPre();
    assert.notEqual(refused.status, 0);
    assert.match(
      refused.stderr,
      /^mon: cannot download the agent: UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate.*; for a private CA, run this with NODE_EXTRA_CA_CERTS=\/path\/to\/ca\.pem; the agent file there stays as it was$/m,
    );
    assert.equal(readFileSync(agentPath(), 'utf8'), before);

    const ca = join(work.dir, 'ca.pem');
    writeFileSync(ca, pki.caPem);
    serverIs(url, `MON_CA=${shellQuote(ca)}\n`);
    assert.deepEqual(await startPre(), { status: 0, stderr: '' });
    assert.equal(await startAgent(), 'build c\n');
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
