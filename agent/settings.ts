import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';

/**
 * The agent's settings, from its environment (docs/agent.md). Only agent/main.ts reads `process.env`
 * and hands it here. A bad setting is a `SettingsError` naming the variable; the agent then exits with
 * code 2 without sending anything.
 */
export type Settings = {
  /** The server's address without a trailing slash: `https://mon.example.com` or with a path prefix. */
  server: URL;
  token: string;
  /** Every host file is read through it (`/proc`, `/sys`, mounts). */
  hostRoot: string;
  /** The spool and other state. */
  stateDir: string;
  /** The host's checks.toml. */
  checksFile: string;
  /** An extra trusted root certificate (PEM) for the server's certificate; null: the system's roots only. */
  ca: string | null;
  /** The container runtime's socket from DOCKER_HOST; null: the first of docker.ts's that exists. */
  dockerSocket: string | null;
  /**
   * HTTPS_PROXY / https_proxy and NO_PROXY / no_proxy as set (transport.ts hands them to Node's own
   * proxy support); null when no HTTPS proxy is set.
   */
  proxyEnv: Record<string, string> | null;
};

export type Env = Readonly<Record<string, string | undefined>>;

export class SettingsError extends Error {
  override name = 'SettingsError';
}

/** A host token as the server makes it: `bth_` and a base64url secret. */
const tokenPattern = /^bth_[A-Za-z0-9_-]{20,200}$/;

export function readSettings(env: Env, readFile: (path: string) => string = readText): Settings {
  const server = serverOf(env.MON_SERVER);
  const token = (env.MON_TOKEN ?? '').trim();
  if (!token)
    throw new SettingsError('MON_TOKEN is required: the host token (bth_…) shown when the host was added');
  // The value is a secret: the message never repeats it.
  if (!tokenPattern.test(token)) {
    throw new SettingsError(
      'MON_TOKEN is not a host token: it starts with bth_ (as shown when the host was added)',
    );
  }
  const allowHttp = env.MON_ALLOW_HTTP ?? '';
  if (allowHttp !== '' && allowHttp !== '0' && allowHttp !== '1') {
    throw new SettingsError(
      'MON_ALLOW_HTTP must be 1 (allow plain HTTP to a server that is not loopback) or 0',
    );
  }
  const refusal = tokenTransportProblem(server, allowHttp === '1');
  if (refusal) throw new SettingsError(refusal);
  const hostRoot = resolve(env.MON_HOST_ROOT || '/');
  const stateDir = resolve(env.MON_STATE_DIR || '/var/lib/mon-agent');
  const checksFile = env.MON_CHECKS ? resolve(env.MON_CHECKS) : join(hostRoot, 'etc/mon-agent/checks.toml');
  return {
    server,
    token,
    hostRoot,
    stateDir,
    checksFile,
    ca: caOf(env.MON_CA, readFile),
    dockerSocket: dockerSocketOf(env.DOCKER_HOST),
    proxyEnv: proxyEnvOf(env),
  };
}

/** The proxy variables Node's agents read for HTTPS (docs/agent.md, "Through a proxy"). */
function proxyEnvOf(env: Env): Record<string, string> | null {
  if (!env.HTTPS_PROXY && !env.https_proxy) return null;
  const picked: Record<string, string> = {};
  for (const name of ['HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy']) {
    const value = env[name];
    if (value) picked[name] = value;
  }
  return picked;
}

/**
 * DOCKER_HOST as Docker's own clients read it, for a unix socket only: the agent reads the runtime
 * through a local socket, never over the network (tcp:// would need TLS client certificates, ssh://
 * a shell), so any other scheme is a bad setting rather than a runtime silently not read.
 */
function dockerSocketOf(text: string | undefined): string | null {
  const value = (text ?? '').trim();
  if (!value) return null;
  const path = value.startsWith('unix://') ? value.slice('unix://'.length) : null;
  if (!path?.startsWith('/')) {
    throw new SettingsError(
      `DOCKER_HOST must be a unix socket, such as unix:///run/podman/podman.sock: the agent reads the container runtime only through a local socket (${value.split(':')[0]}:// is not read)`,
    );
  }
  return path;
}

function serverOf(text: string | undefined): URL {
  const value = (text ?? '').trim();
  if (!value)
    throw new SettingsError('MON_SERVER is required: the server address, such as https://mon.example.com');
  const url = URL.canParse(value) ? new URL(value) : null;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new SettingsError(
      'MON_SERVER must be an https:// (or http://) URL, such as https://mon.example.com',
    );
  }
  if (url.username || url.password)
    throw new SettingsError('MON_SERVER must not hold a user name or password');
  if (url.search || url.hash) throw new SettingsError('MON_SERVER must not have a query or fragment');
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

/**
 * Why the token may not be sent to `server`, or null. It goes over HTTPS (the certificate verified,
 * see transport.ts), over plain HTTP to a loopback address, or over plain HTTP anywhere only when
 * MON_ALLOW_HTTP=1 says so: a network between agent and server must not read it.
 */
export function tokenTransportProblem(server: URL, allowHttp: boolean): string | null {
  if (server.protocol === 'https:' || allowHttp || isLoopback(server.hostname)) return null;
  return (
    `MON_SERVER is plain HTTP to ${server.hostname}, which is not this machine: the host token would cross ` +
    'the network unencrypted. Use https://, or set MON_ALLOW_HTTP=1 if the network between them is trusted'
  );
}

/**
 * `localhost`, 127.0.0.0/8 and ::1 (as written: a name is not looked up, its address could change).
 * Not `*.localhost`: glibc does not map those names to loopback, DNS may answer anything for them.
 */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6)
    return host === '::1' || /^::ffff:127\./.test(host) || /^::ffff:7f[0-9a-f]{2}:/.test(host);
  return false;
}

function caOf(path: string | undefined, readFile: (path: string) => string): string | null {
  if (!path) return null;
  let pem: string;
  try {
    pem = readFile(path);
  } catch (error) {
    throw new SettingsError(
      `MON_CA: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
  try {
    // Required here, not imported: node:crypto costs an agent without MON_CA 2 MB of memory.
    const { X509Certificate } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
    new X509Certificate(pem);
  } catch {
    throw new SettingsError(`MON_CA: ${path} is not a PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  return pem;
}

function readText(path: string): string {
  return readFileSync(path, 'utf8');
}
