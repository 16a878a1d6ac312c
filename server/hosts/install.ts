import { isLoopback } from '../../agent/settings.ts';
import { DOWNLOAD_SCRIPT as download } from './fetch-agent.ts';

/**
 * The install commands `POST /api/v1/hosts` answers once, with the new token in them (docs/agent.md,
 * "Installing"): two shell snippets to run as root on the host, one that starts the agent with
 * `docker run`, one that installs a systemd unit. Both write the settings with the token to
 * /etc/mon-agent/env (0600) first, so that the token is on no command line (`ps`) and, with Docker, in
 * no container configuration (`docker inspect`): the container reads the file. Both fetch the agent as
 * one file from the server (`GET /agent/v1/agent.mjs`) with the same Node code (fetch-agent.ts), which
 * reaches the server as the agent does; the host needs Node or Docker and nothing else. Every value is shell-quoted:
 * the server address comes from configuration.
 *
 * A server address that is plain HTTP to another machine would have the host download code to run as
 * root, and send its token, unencrypted: then both snippets start with a warning and stop unless they
 * are run with MON_ALLOW_HTTP=1 (a network the user trusts), which they then give the agent too.
 */
export function installCommands(input: { serverUrl: string; token: string; hostName: string }): {
  docker: string;
  systemd: string;
} {
  const server = serverAddress(input.serverUrl);
  const name = input.hostName.replace(/[^\p{L}\p{N}\p{P}\p{S} ]/gu, '?');
  const url = new URL(server);
  const plainHttp = url.protocol === 'http:' && !isLoopback(url.hostname);
  const settings = settingsSnippet(server, input.token, plainHttp);
  const warning = plainHttp ? plainHttpWarning : isLoopback(url.hostname) ? loopbackWarning(server) : '';
  return {
    docker: `${warning}# mon agent in Docker for the host ${name}: run as root on that host.
${settings}${dockerCommand()}
`,
    systemd: `${warning}${systemdSnippet(server, settings, name)}`,
  };
}

/**
 * The first line of the commands when mon's address is loopback (the default listen address without
 * `[server] url`): an agent on another machine would connect to itself for ever.
 */
const loopbackWarning = (server: string) =>
  `# mon's address here is ${server}, the machine's own: these work only on the machine mon runs on. For another host, set [server] url in mon.toml to an address it reaches and make the host a new token (New token on its page).\n`;

/** The first line of the commands for a plain HTTP server that is not loopback. */
const plainHttpWarning =
  '# mon is served over plain HTTP: set [server] url to an https:// address in mon.toml and make the host ' +
  'a new token (New token on its page). As it is, this stops unless run with MON_ALLOW_HTTP=1, for a network you trust (docs/agent.md).\n';

/**
 * Node's flags for the agent (docs/agent.md, "Footprint"; measured by `npm run bench -- agent`).
 * `--optimize-for-size` makes V8 trade CPU for memory: its heap is collected before it grows by the
 * garbage of a few samples. `--no-opt --no-maglev` run the agent's code in the interpreter and the
 * baseline compiler only: at one sample every 15 s the optimizing compilers cost more CPU and memory
 * than they save. `--max-semi-space-size=1` keeps the young generation at 1 MB a half instead of
 * growing to 16 MB under a burst (a backlog sent after an outage).
 */
export const AGENT_NODE_FLAGS = [
  '--optimize-for-size',
  '--no-opt',
  '--no-maglev',
  '--max-semi-space-size=1',
] as const;
const nodeFlags = AGENT_NODE_FLAGS.join(' ');

/**
 * The agent's environment beyond its settings, in both installs: one malloc arena for all its threads
 * (glibc gives each thread that allocates one of its own, up to 8 per core, mostly idle pages;
 * musl, in the Docker image, has none and ignores it).
 */
export const AGENT_ENV = { MALLOC_ARENA_MAX: '1' } as const;
const envWords = Object.entries(AGENT_ENV).map(([name, value]) => `${name}=${value}`);

const STATE_DIR = '/var/lib/mon-agent';
/** The agent's settings on the host, with the token; the Docker install mounts it into the container. */
const ENV_FILE = '/etc/mon-agent/env';

/** The settings the install writes; running it again replaces these lines and keeps every other. */
const OWNED_SETTINGS = ['MON_SERVER', 'MON_TOKEN', 'MON_ALLOW_HTTP'] as const;
/** A line of the settings file that sets one of OWNED_SETTINGS, as sh and systemd read it. */
const ownedLine = `^[[:space:]]*(export[[:space:]]+)?(${OWNED_SETTINGS.join('|')})[[:space:]]*=`;

/**
 * The start of both snippets: `set -eu`, the plain HTTP guard when it applies, and the settings file
 * (0600, in a 0700 directory) in a format both systemd and sh read. Run again (a new token), it
 * replaces only the install's own lines: what the operator added (`HTTPS_PROXY`, `MON_CA`,
 * `NODE_EXTRA_CA_CERTS`, `DOCKER_HOST`, …) stays, or the agent would lose its way to the server. The
 * file is written beside the old one and renamed over it, so a failed write leaves the old one whole.
 */
function settingsSnippet(server: string, token: string, plainHttp: boolean): string {
  const refusal =
    `mon: ${server} is plain HTTP: the agent would be downloaded and its token sent unencrypted. ` +
    'Set [server] url to an https:// address, or run this with MON_ALLOW_HTTP=1 on a network you trust';
  const guard = plainHttp
    ? `if [ "\${MON_ALLOW_HTTP:-}" != 1 ]; then echo ${shellQuote(refusal)} >&2; exit 1; fi\n`
    : '';
  return `set -eu
${guard}umask 077
mkdir -p /etc/mon-agent
cat > ${ENV_FILE}.new <<'MON_ENV'
MON_SERVER=${envFileValue(server)}
MON_TOKEN=${envFileValue(token)}
${plainHttp ? "MON_ALLOW_HTTP='1'\n" : ''}MON_ENV
if [ -f ${ENV_FILE} ]; then grep -a -v -E ${shellQuote(ownedLine)} ${ENV_FILE} >> ${ENV_FILE}.new || [ $? = 1 ]; fi
chmod 600 ${ENV_FILE}.new
mv -f ${ENV_FILE}.new ${ENV_FILE}
`;
}

/**
 * The old `mon-agent` container goes first, so that running the commands again (a new token, a new
 * server address) replaces it instead of failing on the name; its volume, with the spool, stays.
 * Then `docker run`: host network and PID namespace (the host's network cards and processes), the host's
 * root read-only at /host with `rslave` (filesystems mounted on the host later appear in the container
 * too, so they are measured), the container runtime's socket, the settings file, a volume for the
 * spool. The container reads the settings, downloads the agent into the volume at each start and runs
 * it; when the server cannot be reached then, it runs the copy of the last start, which keeps samples
 * in the spool until the server is back.
 */
function dockerCommand(): string {
  const script =
    `set -a; . ${ENV_FILE}; set +a; f="\${MON_STATE_DIR:-${STATE_DIR}}/mon-agent.mjs"; ` +
    `node -e "${download.replaceAll('"', '\\"')}" "$f" || test -f "$f" && exec node ${nodeFlags} "$f"`;
  const run = [
    'docker run -d --name mon-agent --restart unless-stopped --network host --pid host',
    `-v /:/host:ro,rslave -v /var/run/docker.sock:/var/run/docker.sock:ro -v ${ENV_FILE}:${ENV_FILE}:ro`,
    `-v mon-agent:${STATE_DIR} -e MON_HOST_ROOT=/host ${envWords.map((word) => `-e ${word}`).join(' ')} node:24-alpine sh -c ${shellQuote(script)}`,
  ].join(' ');
  return `docker rm -f mon-agent >/dev/null 2>&1 || true\n${run}`;
}

/** Where the systemd install puts the agent, and the script that downloads it. */
const LIB_DIR = '/usr/local/lib/mon-agent';
const SYSTEMD_AGENT = `${LIB_DIR}/mon-agent.mjs`;
const SYSTEMD_FETCH = `${LIB_DIR}/fetch-agent.cjs`;

/**
 * A shell snippet to run as root on the host: writes the settings, checks for Node 20 or later, writes
 * the download script and with it downloads the agent into /usr/local/lib/mon-agent, installs
 * mon-agent.service and starts it (restarts it when it ran before, e.g. with an older token). The unit
 * downloads the agent again before each start (`ExecStartPre`, its failure ignored: `-`), so that a
 * restart runs the agent the server serves now, and a host whose server is down at boot runs the
 * last copy; the settings file gives the download `MON_SERVER` and `MON_CA`.
 */
function systemdSnippet(server: string, settings: string, name: string): string {
  return `# mon agent for the host ${name}: run as root on that host (it needs Node.js 20 or later).
${settings}node_bin=$(command -v node) || { echo 'mon: Node.js 20 or later is needed: node is not on the PATH' >&2; exit 1; }
"$node_bin" -e 'if (Number(process.versions.node.split(".")[0]) < 20) { console.error("mon: Node.js 20 or later is needed, this is " + process.version); process.exit(1) }'
mkdir -p ${LIB_DIR} ${STATE_DIR}
cat > ${SYSTEMD_FETCH} <<'MON_FETCH'
// Downloads the agent mon serves into the file named last (docs/agent.md, "Updating agents").
${download}
MON_FETCH
MON_SERVER=${shellQuote(server)} "$node_bin" ${SYSTEMD_FETCH} ${SYSTEMD_AGENT}
chmod 755 ${LIB_DIR}
chmod 644 ${SYSTEMD_FETCH} ${SYSTEMD_AGENT}
cat > /etc/systemd/system/mon-agent.service <<MON_UNIT
[Unit]
Description=mon agent
Wants=network-online.target
After=network-online.target

[Service]
EnvironmentFile=${ENV_FILE}
Environment=MON_STATE_DIR=${STATE_DIR} ${envWords.join(' ')}
# The agent mon serves now, at each start; without the server, the last copy runs.
ExecStartPre=-$node_bin ${SYSTEMD_FETCH} ${SYSTEMD_AGENT}
ExecStart=$node_bin ${nodeFlags} ${SYSTEMD_AGENT}
Restart=always
RestartSec=10
RestartPreventExitStatus=2

[Install]
WantedBy=multi-user.target
MON_UNIT
chmod 644 /etc/systemd/system/mon-agent.service
systemctl daemon-reload
if systemctl is-active --quiet mon-agent.service; then systemctl restart mon-agent.service; fi
systemctl enable --now mon-agent.service
`;
}

/** The server's address as a URL serializes it (no spaces or line breaks), without a trailing slash. */
function serverAddress(text: string): string {
  return new URL(text).href.replace(/\/+$/, '');
}

/** One shell word that is exactly `value`: single quotes, with `'` written as `'\''`. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * A value for a systemd environment file that is also a shell word (the file follows shell quoting
 * without expansion): single-quoted, or double-quoted with `\`, `"`, `$` and backticks escaped when the
 * value holds a single quote (systemd does not join `'…'\''…'`).
 */
export function envFileValue(value: string): string {
  if (!value.includes("'")) return `'${value}'`;
  return `"${value.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`;
}
