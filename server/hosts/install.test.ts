import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { type Receiver, startReceiver } from '../http/fixtures/receiver.ts';
import { tempDir } from '../testing.ts';
import { AGENT_NODE_FLAGS, envFileValue, installCommands, shellQuote } from './install.ts';

const token = 'bth_Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5';
/**
 * An address from configuration that tries the ways out of a shell word that survive URL serialization
 * (a quote, a command substitution, separators), each creating a file if it ever ran.
 */
const pwned = `/tmp/mon-pwned-${process.pid}`;
const hostile = `https://mon.example.com/a'b$(touch$IFS${pwned});touch$IFS${pwned}&c|d"e\\f/`;
const hostileHref = new URL(hostile).href.replace(/\/+$/, '');

const run = promisify(execFile);
const work = tempDir('mon-install-');
let receiver: Receiver;
before(async () => {
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  work.remove();
});

/**
 * Runs `line` with sh, a `docker` on the PATH that records its arguments (NUL-separated) in `file`
 * instead of starting anything: the words the shell hands to docker.
 */
function dockerWords(line: string): string[] {
  const bin = join(work.dir, 'bin');
  const file = join(work.dir, 'docker-args');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'docker'), `#!/bin/sh\nprintf '%s\\0' "$@" > ${shellQuote(file)}\n`);
  chmodSync(join(bin, 'docker'), 0o755);
  const run = spawnSync('/bin/sh', ['-c', line], { env: { PATH: `${bin}:/usr/bin:/bin` }, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return readFileSync(file, 'utf8').split('\0').slice(0, -1);
}

test('the docker line: host network and PIDs, the root and the socket read-only, a volume for the spool, the settings', () => {
  const { docker } = installCommands({ serverUrl: 'https://mon.example.com/', token, hostName: 'web-1' });
  const words = dockerWords(docker);
  const script = words.at(-1)!;
  assert.deepEqual(words.slice(0, -1), [
    'run',
    '-d',
    '--name',
    'mon-agent',
    '--restart',
    'unless-stopped',
    '--network',
    'host',
    '--pid',
    'host',
    '-v',
    '/:/host:ro',
    '-v',
    '/var/run/docker.sock:/var/run/docker.sock:ro',
    '-v',
    'mon-agent:/var/lib/mon-agent',
    '-e',
    'MON_SERVER=https://mon.example.com',
    '-e',
    `MON_TOKEN=${token}`,
    '-e',
    'MON_HOST_ROOT=/host',
    'node:24-alpine',
    'sh',
    '-c',
  ]);
  assert.equal(spawnSync('/bin/sh', ['-n', '-c', script]).status, 0, 'the container script is valid sh');
});

test('a hostile server address stays one value: nothing of it runs', () => {
  const { docker, systemd } = installCommands({ serverUrl: hostile, token, hostName: 'web-1' });
  assert.match(hostileHref, /'b\$\(touch\$IFS\/tmp\/mon-pwned-\d+\);touch/);
  const words = dockerWords(docker);
  assert.ok(words.includes(`MON_SERVER=${hostileHref}`), words.join(' | '));
  assert.equal(existsSync(pwned), false);

  // The settings file of the systemd install reads back exactly (shell and systemd quoting agree).
  const env = /<<'MON_ENV'\n([\s\S]*?)\nMON_ENV\n/.exec(systemd)?.[1];
  assert.ok(env);
  const envFile = join(work.dir, 'env');
  writeFileSync(envFile, `${env}\n`);
  const read = spawnSync(
    '/bin/sh',
    ['-c', `. ${shellQuote(envFile)}; printf '%s\\n%s' "$MON_SERVER" "$MON_TOKEN"`],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(read.stdout, `${hostileHref}\n${token}`);
  assert.equal(existsSync(pwned), false);
  assert.equal(spawnSync('/bin/sh', ['-n', '-c', systemd]).status, 0);
});

test('the container script downloads the agent into the volume and runs it; without the server it runs the last copy', async () => {
  receiver.answer = (request) =>
    request.path === '/mon/agent/v1/agent.mjs'
      ? {
          status: 200,
          body: 'console.log("agent ran from " + process.env.MON_SERVER + " with " + process.execArgv.join(" "))',
          headers: { 'content-type': 'text/javascript' },
        }
      : { status: 404 };
  const { docker } = installCommands({ serverUrl: `${receiver.url}/mon/`, token, hostName: 'web-1' });
  const script = dockerWords(docker).at(-1)!;
  const node = dirname(process.execPath);
  // Not spawnSync: the receiver answering the download runs in this process.
  const start = async (server: string, state: string) => {
    mkdirSync(state, { recursive: true });
    try {
      const { stdout, stderr } = await run('/bin/sh', ['-c', script], {
        env: { PATH: `${node}:/usr/bin:/bin`, MON_SERVER: server, MON_STATE_DIR: state },
        timeout: 20_000,
      });
      return { status: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  const state = join(work.dir, 'state');
  const first = await start(`${receiver.url}/mon`, state);
  assert.equal(first.status, 0, first.stderr);
  const flags = AGENT_NODE_FLAGS.join(' ');
  assert.equal(first.stdout, `agent ran from ${receiver.url}/mon with ${flags}\n`);
  assert.ok(existsSync(join(state, 'mon-agent.mjs')));

  const down = await start('http://127.0.0.1:1', state);
  assert.match(down.stderr, /mon: cannot download the agent/);
  assert.equal(
    down.stdout,
    `agent ran from http://127.0.0.1:1 with ${flags}\n`,
    'the copy of the last start runs',
  );

  const fresh = join(work.dir, 'fresh');
  const none = await start(`${receiver.url}/elsewhere`, fresh);
  assert.notEqual(none.status, 0);
  assert.match(none.stderr, /cannot download the agent: HTTP 404 from/);
  assert.equal(existsSync(join(fresh, 'mon-agent.mjs')), false, 'no half file is left');
});

test('the systemd snippet: the settings 0600 with the token, the agent file, the unit with MON_STATE_DIR, enable --now', () => {
  const { systemd } = installCommands({ serverUrl: 'https://mon.example.com', token, hostName: 'web-1' });
  assert.equal(spawnSync('/bin/sh', ['-n', '-c', systemd]).status, 0, 'valid sh');
  assert.match(systemd, /^# mon agent for the host web-1: run as root/);
  assert.match(systemd, /^set -eu$/m);
  assert.match(systemd, /^umask 077$/m);
  assert.match(
    systemd,
    /^cat > \/etc\/mon-agent\/env <<'MON_ENV'\nMON_SERVER='https:\/\/mon\.example\.com'\nMON_TOKEN='bth_[\w-]+'\nMON_ENV\nchmod 600 \/etc\/mon-agent\/env$/m,
  );
  assert.match(
    systemd,
    /^MON_SERVER='https:\/\/mon\.example\.com' "\$node_bin" -e '.*' \/usr\/local\/lib\/mon-agent\/mon-agent\.mjs$/m,
  );
  assert.match(systemd, /^EnvironmentFile=\/etc\/mon-agent\/env$/m);
  assert.match(systemd, /^Environment=MON_STATE_DIR=\/var\/lib\/mon-agent$/m);
  assert.ok(
    systemd.includes(
      `\nExecStart=$node_bin ${AGENT_NODE_FLAGS.join(' ')} /usr/local/lib/mon-agent/mon-agent.mjs\n`,
    ),
    'the unit runs the agent with its Node flags',
  );
  assert.match(systemd, /^systemctl enable --now mon-agent\.service$/m);
  // A host name with a line break cannot end the comment and start a command.
  const odd = installCommands({
    serverUrl: 'https://mon.example.com',
    token,
    hostName: 'web\nrm -rf /',
  }).systemd;
  assert.match(odd, /^# mon agent for the host web\?rm -rf \/: run as root/);
});

test('quoting: one shell word, whatever the value', () => {
  for (const value of ["it's", '$(id)', '`id`', 'a b', '"q"', '\\', "'", '']) {
    const echoed = spawnSync('/bin/sh', ['-c', `printf %s ${shellQuote(value)}`], { encoding: 'utf8' });
    assert.equal(echoed.stdout, value);
    const sourced = spawnSync('/bin/sh', ['-c', `V=${envFileValue(value)}; printf %s "$V"`], {
      encoding: 'utf8',
    });
    assert.equal(sourced.stdout, value);
  }
});
