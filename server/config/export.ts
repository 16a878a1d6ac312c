import { stringify } from 'smol-toml';
import { authConfigSchema } from '../auth/config.ts';
import { channelToFileAlert, kindLabel, secretKeyOf, urlIsSecret } from './alerts.ts';
import { bodyToFileCheck } from './checks.ts';
import { formatDuration } from './durations.ts';
import { referencedNames } from './env-refs.ts';
import { formatPath, type Path } from './paths.ts';
import { defaultHostAlerts, defaultRetention, type LiveConfig, type PanelCheck } from './service.ts';

/** An environment variable the exported text refers to; never its value. */
export type SecretRef = { name: string; key: string; about: string };
export type ConfigExport = { toml: string; secrets: SecretRef[] };

type Table = Record<string, unknown>;

/**
 * The whole configuration (file objects, then panel checks) as one mon.toml text that the loader
 * accepts. Values that came from `${NAME}` keep their reference; secrets become references listed in
 * `secrets`; `references` maps file paths to the file's text (see load.ts).
 */
export function exportConfig(
  config: LiveConfig,
  references: ReadonlyMap<string, string>,
  panelChecks: PanelCheck[],
): ConfigExport {
  const tree = toTree(config, panelChecks);
  restoreReferences(tree, [], references);

  const used = new Set<string>();
  walkStrings(tree, [], (value) => {
    for (const name of referencedNames(value)) used.add(name);
  });
  const secrets: SecretRef[] = [];
  const listed = new Set<string>();
  /** Turns `table[key]` into a reference unless it already is one; lists the variables. */
  const protect = (table: Table, key: string, path: Path, suggested: string, about: string) => {
    const value = table[key];
    if (typeof value !== 'string') return;
    let names = referencedNames(value);
    if (names.length === 0) {
      let name = envName(suggested);
      for (let n = 2; used.has(name); n++) name = `${envName(suggested)}_${n}`;
      used.add(name);
      table[key] = `\${${name}}`;
      names = [name];
    }
    for (const name of names) {
      if (listed.has(name)) continue;
      listed.add(name);
      secrets.push({ name, key: formatPath([...path, key]), about });
    }
  };

  (tree.alert as Table[] | undefined)?.forEach((alert, i) => {
    const kind = alert.type as keyof typeof secretKeyOf;
    const label = `${kindLabel[kind]} alert ${String(alert.name)}`;
    const secretKey = secretKeyOf[kind];
    const secretAbout = {
      token: 'Access token',
      secret: 'Signing secret',
      bot_token: 'Bot token',
      password: 'SMTP password',
    };
    if (secretKey)
      protect(
        alert,
        secretKey,
        ['alert', i],
        `MON_ALERT_${alert.name}_${secretKey}`,
        `${secretAbout[secretKey as keyof typeof secretAbout]} of ${label}`,
      );
    if (urlIsSecret(kind))
      protect(alert, 'url', ['alert', i], `MON_ALERT_${alert.name}_URL`, `Webhook URL of ${label}`);
  });
  const oidc = (tree.auth as Table | undefined)?.oidc as Table[] | undefined;
  oidc?.forEach((provider, i) => {
    protect(
      provider,
      'client_secret',
      ['auth', 'oidc', i],
      `MON_OIDC_${provider.name}_CLIENT_SECRET`,
      `Client secret of OIDC provider ${String(provider.name)}`,
    );
  });
  (tree.check as Table[] | undefined)?.forEach((check, i) => {
    const name = String(check.name);
    protect(
      check,
      'ping_token',
      ['check', i],
      `MON_CHECK_${name}_PING_TOKEN`,
      `Ping token of heartbeat ${name}`,
    );
    const headers = check.headers as Table | undefined;
    // Any header value may be a credential (X-Auth, X-Api, ...): all become references.
    for (const header of Object.keys(headers ?? {})) {
      protect(
        headers!,
        header,
        ['check', i, 'headers'],
        `MON_CHECK_${name}_${header}`,
        `Header ${header} of check ${name}`,
      );
    }
  });
  // Variables the file itself referred to in other places.
  walkStrings(tree, [], (value, path) => {
    for (const name of referencedNames(value)) {
      if (listed.has(name)) continue;
      listed.add(name);
      secrets.push({
        name,
        key: formatPath(path),
        about: `Environment variable used by ${formatPath(path)}`,
      });
    }
  });

  const header =
    '# mon configuration export. Set the environment variables listed with it before loading.\n\n';
  return { toml: header + stringify(tree), secrets };
}

function toTree(config: LiveConfig, panelChecks: PanelCheck[]): Table {
  const tree: Table = {};
  if (config.server.trustedProxies.length > 0) tree.trusted_proxies = [...config.server.trustedProxies];
  if (config.server.url !== null) tree.server = { url: config.server.url };
  if (config.retention.checkResultsMs !== defaultRetention.checkResultsMs) {
    tree.retention = { check_results: formatDuration(config.retention.checkResultsMs) };
  }
  if (JSON.stringify(config.auth) !== JSON.stringify(authConfigSchema.parse({}))) {
    tree.auth = JSON.parse(JSON.stringify(config.auth));
  }
  if (config.services.length > 0) {
    tree.service = config.services.map((s) => {
      const out: Table = { name: s.name };
      if (s.hosts.length > 0) out.hosts = [...s.hosts];
      if (s.sites.length > 0) out.sites = [...s.sites];
      if (s.dependsOn.length > 0) out.depends_on = [...s.dependsOn];
      if (s.tier !== null && s.tier !== 'standard') out.tier = s.tier;
      return out;
    });
  }
  if (config.hosts.length > 0) {
    tree.host = config.hosts.map((h) => {
      const out: Table = { name: h.name };
      for (const key of ['cpu', 'memory', 'swap', 'disk', 'temperature'] as const) {
        const value = h.alerts[key];
        if (value !== defaultHostAlerts[key]) out[key] = value ?? false;
      }
      if (h.alerts.ignoreMounts.length > 0) out.ignore_mounts = [...h.alerts.ignoreMounts];
      return out;
    });
  }
  const checks = [
    ...config.checks.map((c) => bodyToFileCheck(c.body, c.pingToken)),
    ...panelChecks.map((c) => bodyToFileCheck(c.body, c.pingToken)),
  ];
  if (checks.length > 0) tree.check = checks;
  if (config.alerts.length > 0) tree.alert = config.alerts.map(channelToFileAlert);
  return tree;
}

/** Puts back the file's `${NAME}` text where a value came from the environment. */
function restoreReferences(node: unknown, path: Path, references: ReadonlyMap<string, string>): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      if (typeof item === 'string') {
        const raw = references.get(formatPath([...path, i]));
        if (raw !== undefined) node[i] = raw;
      } else restoreReferences(item, [...path, i], references);
    });
  } else if (node && typeof node === 'object') {
    const table = node as Table;
    for (const [key, value] of Object.entries(table)) {
      if (typeof value === 'string') {
        const raw = references.get(formatPath([...path, key]));
        if (raw !== undefined) table[key] = raw;
      } else restoreReferences(value, [...path, key], references);
    }
  }
}

function walkStrings(node: unknown, path: Path, visit: (value: string, path: Path) => void): void {
  if (typeof node === 'string') visit(node, path);
  else if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) walkStrings(item, [...path, i], visit);
  } else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) walkStrings(value, [...path, key], visit);
  }
}

/** `MON_ALERT_telegram-2_bot_token` → `MON_ALERT_TELEGRAM_2_BOT_TOKEN`. */
function envName(text: string): string {
  return text
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}
