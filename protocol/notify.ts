/**
 * Notifications, silences, maintenance windows and the watchdog (SPEC "Channel", "Silence and
 * maintenance window", "Token, user, watchdog", docs/notifications.md): the API bodies and the reads,
 * shared by the server, the panel and the tests.
 */

export const channelKinds = ['ntfy', 'webhook', 'slack', 'discord', 'telegram', 'email'] as const;
export type ChannelKind = (typeof channelKinds)[number];

/**
 * `POST /api/v1/channels` and `PUT /channels/{name}`. Keys a kind does not use are absent or null.
 * On PUT: `secret: null` (or absent) keeps the stored secret, `""` removes it; for Slack and Discord,
 * whose webhook URLs hold a secret, `url: null` keeps the stored URL.
 */
export type ChannelBody = {
  name: string;
  kind: ChannelKind;
  url?: string | null;
  secret?: string | null;
  chatId?: string | null;
  smtp?: string | null;
  /** null selects by port: 465 = TLS from the start, otherwise STARTTLS when the server offers it. */
  tls?: boolean | null;
  username?: string | null;
  from?: string | null;
  to?: string[] | null;
  allowPrivate?: boolean | null;
};

/** `POST /api/v1/channels` answers 201 with the channel's name. */
export type ChannelCreated = { name: string };

/**
 * A channel's settings as reads show them: never a secret. The URL of a Slack or Discord channel is
 * its credential, so it is null there and `urlHost` names its host.
 */
export type ChannelSettingsRead = {
  url: string | null;
  urlHost: string | null;
  chatId: string | null;
  smtp: string | null;
  tls: boolean | null;
  username: string | null;
  from: string | null;
  to: string[];
  allowPrivate: boolean;
};

/** The settings of a channel that sets none: null, `to` empty, private addresses refused. */
export function unsetChannelSettings(): Omit<ChannelSettingsRead, 'urlHost'> {
  return {
    url: null,
    chatId: null,
    smtp: null,
    tls: null,
    username: null,
    from: null,
    to: [],
    allowPrivate: false,
  };
}

/** A channel's settings as reads show them, with `given` set and nothing else. */
export function channelSettingsRead(given: Partial<ChannelSettingsRead> = {}): ChannelSettingsRead {
  return { ...unsetChannelSettings(), urlHost: null, ...given };
}

/**
 * A channel in the settings read. `managed`: an `[[alert]]` of mon.toml (read-only in the API: 409).
 * `settings` and `hasSecret` are null for viewers and `read` tokens.
 */
export type ChannelRead = {
  name: string;
  kind: ChannelKind;
  managed: boolean;
  settings: ChannelSettingsRead | null;
  hasSecret: boolean | null;
};

/** `POST /channels/{name}/test`: what happened to the test message (200 either way). */
export type ChannelTestResult = {
  delivered: boolean;
  /** Why it was not delivered, in words (the receiver's status and answer, a refused address). */
  error: string | null;
  /** A permanent error: retrying the same message would fail the same way. */
  permanent: boolean;
  latencyMs: number;
};

export type WindowKind = 'silence' | 'maintenance';
export type WindowScope = 'all' | 'service' | 'host';

/** `POST /silences`, `POST /maintenance`, and their PUTs. `name` is null for `all`. Times in ms. */
export type WindowBody = {
  scope: WindowScope;
  name: string | null;
  starts: number;
  ends: number;
  reason: string | null;
};

/** A silence or maintenance window as reads show it. */
export type WindowRead = WindowBody & {
  id: string;
  /** The account's email or the token's label that made it. */
  createdBy: string;
  createdAt: number;
  /** In force now (started and not ended). */
  active: boolean;
};

/**
 * `GET /api/v1/settings`: channels (file channels first, in file order, then the panel's by name),
 * silences and maintenance windows not yet ended (soonest first), and under `holds` the ids of those
 * in force now.
 */
export type SettingsRead = {
  channels: ChannelRead[];
  silences: WindowRead[];
  maintenance: WindowRead[];
  holds: { silences: string[]; maintenance: string[] };
};

/** The watchdog's two targets: the edge (a POST with a token) and the heartbeat URL (a GET). */
export const watchdogKinds = ['edge', 'heartbeat'] as const;
export type WatchdogKind = (typeof watchdogKinds)[number];

/**
 * `PUT /watchdog/edge`: `token: null` (or absent) keeps the stored token. `allowPrivate` (default
 * false) lets the URL reach a private address or use plain http://, for a box on the user's network.
 */
export type WatchdogEdgeBody = { url: string; token: string | null; allowPrivate?: boolean };
/** `PUT /watchdog/heartbeat-url`; `allowPrivate` as for the edge. */
export type WatchdogHeartbeatBody = { url: string; allowPrivate?: boolean };

/**
 * One watchdog target as `GET /watchdog` shows it: never a token; a heartbeat address shows only its
 * host (and port), an edge address its URL without the query. `managed`: set by mon.toml.
 * `lastError` stays until a request succeeds.
 */
export type WatchdogTarget = {
  address: string;
  managed: boolean;
  allowPrivate: boolean;
  lastSentAt: number | null;
  lastError: string | null;
  lastErrorAt: number | null;
};
/** `GET /watchdog`; `everyMs`: how often each target is sent to (`[watchdog] every`). */
export type WatchdogRead = { edge: WatchdogTarget | null; heartbeat: WatchdogTarget | null; everyMs: number };

/** What an outbox row is about. */
export type NotifyChange = 'opened' | 'reminder' | 'acknowledged' | 'resolved';

/**
 * Where one notification stands. `due`: waiting for its next attempt at `nextAttemptAt`; `sent`;
 * `failed`: a permanent error or retries gave up (`lastError` says why); `muted`: a silence or
 * maintenance window (`heldBy`, its id) held it back; `dropped`: its channel was removed first.
 */
export type DeliveryState = 'due' | 'sent' | 'failed' | 'muted' | 'dropped';

/** A notification of an incident to one channel (the incident read's `deliveries`, oldest first). */
export type Delivery = {
  id: string;
  channel: string;
  kind: ChannelKind | null;
  change: NotifyChange;
  state: DeliveryState;
  attempts: number;
  createdAt: number;
  lastAttemptAt: number | null;
  nextAttemptAt: number | null;
  sentAt: number | null;
  lastError: string | null;
  heldBy: string | null;
};
