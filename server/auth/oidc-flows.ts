import * as client from 'openid-client';
import type { Clock } from '../clock.ts';
import type { OidcProviderConfig } from './config.ts';
import { randomSecret } from './secrets.ts';

const flowLifetimeMs = 10 * 60_000;
const maxFlows = 10_000;
const discoveryLifetimeMs = 60 * 60_000;

type Flow = {
  provider: string;
  verifier: string;
  state: string;
  nonce: string;
  redirectUri: string;
  expiresAt: number;
};

/** Sign-in flows in progress (PKCE verifier, state, nonce) and discovered provider configurations. */
export class OidcFlows {
  private readonly clock: Clock;
  private readonly flows = new Map<string, Flow>();
  private readonly discovered = new Map<string, { at: number; config: Promise<client.Configuration> }>();

  constructor(clock: Clock) {
    this.clock = clock;
  }

  add(flow: Omit<Flow, 'expiresAt'>): string {
    const now = this.clock.now();
    if (this.flows.size >= maxFlows) {
      for (const [id, f] of this.flows) if (f.expiresAt <= now) this.flows.delete(id);
      // Still full: the oldest flow gives way.
      if (this.flows.size >= maxFlows) this.flows.delete(this.flows.keys().next().value!);
    }
    const id = randomSecret();
    this.flows.set(id, { ...flow, expiresAt: now + flowLifetimeMs });
    return id;
  }

  /** The flow of this id, once: a callback cannot be replayed. */
  take(id: string): Flow | null {
    const flow = this.flows.get(id);
    this.flows.delete(id);
    return flow && flow.expiresAt > this.clock.now() ? flow : null;
  }

  /** Discovery at `<issuer>/.well-known/openid-configuration`, kept an hour; failures are not kept. */
  configuration(provider: OidcProviderConfig): Promise<client.Configuration> {
    const key = JSON.stringify([
      provider.issuer,
      provider.client_id,
      provider.client_secret ?? null,
      provider.token_endpoint_auth_method,
    ]);
    const now = this.clock.now();
    const cached = this.discovered.get(key);
    if (cached && now - cached.at < discoveryLifetimeMs) return cached.config;
    const config = discover(provider);
    this.discovered.set(key, { at: now, config });
    config.catch(() => this.discovered.delete(key));
    return config;
  }
}

function discover(provider: OidcProviderConfig): Promise<client.Configuration> {
  const secret = provider.client_secret;
  const auth = !secret
    ? client.None()
    : provider.token_endpoint_auth_method === 'client_secret_post'
      ? client.ClientSecretPost(secret)
      : client.ClientSecretBasic(secret);
  const insecure = provider.issuer.toLowerCase().startsWith('http:');
  // Plain HTTP is allowed only when the issuer itself is configured as http:// (a provider on loopback).
  return client.discovery(
    new URL(provider.issuer),
    provider.client_id,
    undefined,
    auth,
    insecure ? { execute: [client.allowInsecureRequests] } : {},
  );
}
