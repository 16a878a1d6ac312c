import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { makePki } from '../runners/fixtures/certs.ts';
import { isLoopback, readSettings, SettingsError, tokenTransportProblem } from './settings.ts';

const token = 'bth_abcdefghijklmnopqrstuvwxyz0123456789_-AB';
const noFiles = (path: string): string => {
  throw Object.assign(new Error(`no ${path}`), { code: 'ENOENT' });
};

function refusal(env: Record<string, string>, readFile = noFiles): string {
  try {
    readSettings(env, readFile);
  } catch (error) {
    assert.ok(error instanceof SettingsError, String(error));
    return error.message;
  }
  assert.fail('the settings were accepted');
}

test('the defaults: host root /, state in /var/lib/mon-agent, checks.toml under the host root', () => {
  const settings = readSettings({ MON_SERVER: 'https://mon.example.com/', MON_TOKEN: token }, noFiles);
  assert.equal(settings.server.href, 'https://mon.example.com/');
  assert.equal(settings.token, token);
  assert.equal(settings.hostRoot, '/');
  assert.equal(settings.stateDir, '/var/lib/mon-agent');
  assert.equal(settings.checksFile, '/etc/mon-agent/checks.toml');
  assert.equal(settings.ca, null);
});

test('MON_HOST_ROOT moves checks.toml with it; MON_CHECKS and MON_STATE_DIR are taken as given', () => {
  const inContainer = readSettings(
    { MON_SERVER: 'https://mon.example.com/mon/', MON_TOKEN: token, MON_HOST_ROOT: '/host' },
    noFiles,
  );
  assert.equal(inContainer.checksFile, '/host/etc/mon-agent/checks.toml');
  assert.equal(inContainer.server.pathname, '/mon', 'a path prefix is kept without its trailing slash');
  const own = readSettings(
    {
      MON_SERVER: 'https://mon.example.com',
      MON_TOKEN: token,
      MON_CHECKS: '/srv/checks.toml',
      MON_STATE_DIR: '/srv/state',
    },
    noFiles,
  );
  assert.equal(own.checksFile, '/srv/checks.toml');
  assert.equal(own.stateDir, '/srv/state');
});

test('each bad setting is refused naming its variable, and never repeats the token', () => {
  assert.match(refusal({ MON_TOKEN: token }), /^MON_SERVER is required/);
  assert.match(refusal({ MON_SERVER: 'mon.example.com', MON_TOKEN: token }), /^MON_SERVER must be an https/);
  assert.match(
    refusal({ MON_SERVER: 'ftp://mon.example.com', MON_TOKEN: token }),
    /^MON_SERVER must be an https/,
  );
  assert.match(
    refusal({ MON_SERVER: 'https://user:pw@mon.example.com', MON_TOKEN: token }),
    /^MON_SERVER must not hold a user name/,
  );
  assert.match(refusal({ MON_SERVER: 'https://mon.example.com' }), /^MON_TOKEN is required/);
  const wrong = refusal({ MON_SERVER: 'https://mon.example.com', MON_TOKEN: 'mon_secretvalue1234567890abc' });
  assert.match(wrong, /^MON_TOKEN is not a host token/);
  assert.doesNotMatch(wrong, /secretvalue/);
  assert.match(
    refusal({ MON_SERVER: 'https://mon.example.com', MON_TOKEN: token, MON_ALLOW_HTTP: 'yes' }),
    /^MON_ALLOW_HTTP must be 1/,
  );
  assert.match(
    refusal({ MON_SERVER: 'https://mon.example.com', MON_TOKEN: token, MON_CA: '/nowhere/ca.pem' }),
    /^MON_CA: cannot read \/nowhere\/ca\.pem \(ENOENT\)/,
  );
  assert.match(
    refusal(
      { MON_SERVER: 'https://mon.example.com', MON_TOKEN: token, MON_CA: '/x.pem' },
      () => 'not a certificate',
    ),
    /^MON_CA: \/x\.pem is not a PEM certificate/,
  );
});

test('DOCKER_HOST: a unix socket is the runtime to read; tcp:// and other schemes are refused', () => {
  const env = { MON_SERVER: 'https://mon.example.com', MON_TOKEN: token };
  assert.equal(readSettings(env, noFiles).dockerSocket, null);
  assert.equal(
    readSettings({ ...env, DOCKER_HOST: 'unix:///run/user/1000/docker.sock' }, noFiles).dockerSocket,
    '/run/user/1000/docker.sock',
  );
  for (const value of [
    'tcp://10.0.0.5:2376',
    'ssh://me@host',
    'unix://run/docker.sock',
    '/run/docker.sock',
  ]) {
    assert.match(refusal({ ...env, DOCKER_HOST: value }), /^DOCKER_HOST must be a unix socket/);
  }
  assert.match(refusal({ ...env, DOCKER_HOST: 'tcp://10.0.0.5:2376' }), /\(tcp:\/\/ is not read\)/);
});

test('MON_CA holds a PEM certificate: it becomes the extra root', () => {
  const pki = makePki();
  try {
    const settings = readSettings(
      { MON_SERVER: 'https://mon.example.com', MON_TOKEN: token, MON_CA: '/etc/mon-ca.pem' },
      (path) => (path === '/etc/mon-ca.pem' ? pki.caPem : noFiles(path)),
    );
    assert.equal(settings.ca, pki.caPem);
  } finally {
    pki.dispose();
  }
});

test('the token goes over HTTPS, over plain HTTP to loopback, or anywhere only with MON_ALLOW_HTTP=1', () => {
  const problem = (url: string, allow = false) => tokenTransportProblem(new URL(url), allow);
  assert.equal(problem('https://mon.example.com'), null);
  assert.equal(problem('http://127.0.0.1:8080'), null);
  assert.equal(problem('http://127.8.9.10:8080'), null);
  assert.equal(problem('http://localhost:8080'), null);
  assert.equal(problem('http://[::1]:8080'), null);
  assert.equal(problem('http://[::ffff:127.0.0.1]:8080'), null);
  assert.match(
    problem('http://mon.example.com') ?? '',
    /plain HTTP to mon\.example\.com, which is not this machine/,
  );
  assert.match(problem('http://10.0.0.5:8080') ?? '', /MON_ALLOW_HTTP=1/);
  assert.notEqual(problem('http://[::ffff:10.0.0.1]'), null);
  // A name that merely starts like a loopback address is not one.
  assert.notEqual(problem('http://127.0.0.1.example.com'), null);
  assert.equal(problem('http://mon.example.com', true), null);
  assert.equal(isLoopback('LOCALHOST'), true);
  // glibc resolves only `localhost` itself to loopback: `app.localhost` goes to DNS like any name.
  assert.equal(isLoopback('app.localhost'), false);
  assert.notEqual(problem('http://mon.localhost:8080'), null);
  assert.equal(isLoopback('localhost.example.com'), false);
});

test('the agent refuses to start over plain HTTP to a server that is not loopback, or with a bad setting, and says why (exit 2)', () => {
  const run = (extra: Record<string, string>) =>
    spawnSync(process.execPath, ['agent/main.ts'], {
      cwd: `${import.meta.dirname}/..`,
      env: { PATH: process.env.PATH, MON_SERVER: 'http://mon.example.com', MON_TOKEN: token, ...extra },
      encoding: 'utf8',
      timeout: 20_000,
    });
  const refused = run({});
  assert.equal(refused.status, 2, refused.stderr);
  assert.match(refused.stderr, /error MON_SERVER is plain HTTP to mon\.example\.com/);
  assert.doesNotMatch(refused.stderr, new RegExp(token));
  const noToken = run({ MON_TOKEN: '' });
  assert.equal(noToken.status, 2);
  assert.match(noToken.stderr, /MON_TOKEN is required/);
  // A state directory that cannot be one: a file stands where it should be.
  const noState = run({ MON_SERVER: 'http://127.0.0.1:9', MON_STATE_DIR: '/dev/null/state' });
  // Exit 1, not 2: a directory may come back (the systemd unit restarts the agent on 1, not on 2).
  assert.equal(noState.status, 1, noState.stderr);
  assert.match(noState.stderr, /error MON_STATE_DIR: cannot use \/dev\/null\/state \(ENOTDIR\)/);
});
