import { z } from 'zod';
import { type Built, configSection, type SecretSpot, type TomlTable } from '../config/section.ts';

/**
 * The `[auth]` table of mon.toml: password sign-in, OpenID Connect providers and forward auth.
 *
 *   [auth]
 *   password = true                       # false hides and refuses password sign-in
 *
 *   [[auth.oidc]]
 *   name = "company"                      # button label; sign-in starts at /api/v1/auth/oidc/company
 *   issuer = "https://id.example.com"     # discovery at <issuer>/.well-known/openid-configuration
 *   client_id = "mon"
 *   client_secret = "${OIDC_SECRET}"
 *   token_endpoint_auth_method = "client_secret_basic"   # or client_secret_post; none without a secret
 *   scopes = ["openid", "email"]          # default openid email profile
 *   allowed_emails = ["ann@example.com"]  # who may sign in: these addresses ...
 *   allowed_domains = ["example.com"]     # ... or any verified address of these domains
 *   admins = ["ann@example.com"]          # these get the admin role, everyone else allowed is a viewer
 *   require_verified_email = true         # false: accept addresses without an email_verified claim
 *
 *   [auth.proxy]                          # forward auth, trusted only from trusted_proxies
 *   email_header = "Remote-Email"
 *   groups_header = "Remote-Groups"       # comma-separated groups
 *   admin_groups = ["admins"]             # members of these groups are admins
 *   admins = ["ann@example.com"]          # and so are these addresses
 *   allowed_emails / allowed_domains      # as for OIDC; both empty = anyone the proxy vouches for
 */
const emailList = z.array(z.string().trim().toLowerCase().email('must be an email address')).default([]);
const domainList = z.array(z.string().trim().toLowerCase().min(1)).default([]);

export const oidcProviderSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'must be lowercase letters, digits and hyphens'),
  label: z.string().min(1).max(60).optional(),
  issuer: z.string().url('must be a URL'),
  client_id: z.string().min(1),
  client_secret: z.string().min(1).optional(),
  token_endpoint_auth_method: z
    .enum(['client_secret_basic', 'client_secret_post'])
    .default('client_secret_basic'),
  scopes: z.array(z.string().min(1)).default(['openid', 'email', 'profile']),
  allowed_emails: emailList,
  allowed_domains: domainList,
  admins: emailList,
  // Some providers never send `email_verified`; set false to accept their addresses without it.
  require_verified_email: z.boolean().default(true),
});
export type OidcProviderConfig = z.infer<typeof oidcProviderSchema>;

export const proxyAuthSchema = z.strictObject({
  email_header: z.string().min(1).default('Remote-Email'),
  groups_header: z.string().min(1).default('Remote-Groups'),
  admin_groups: z.array(z.string().min(1)).default([]),
  admins: emailList,
  allowed_emails: emailList,
  allowed_domains: domainList,
});
export type ProxyAuthConfig = z.infer<typeof proxyAuthSchema>;

export const authConfigSchema = z.strictObject({
  password: z.boolean().default(true),
  oidc: z.array(oidcProviderSchema).default([]),
  proxy: proxyAuthSchema.optional(),
});
export type AuthConfig = z.infer<typeof authConfigSchema>;

const noAuthTable = (): AuthConfig => authConfigSchema.parse({});

/** `[auth]`; OIDC client secrets leave only as `${NAME}` references in the export. */
export const authSection = configSection({
  key: 'auth',
  tables: { auth: authConfigSchema.optional() },
  build: (input): Built<AuthConfig> => ({ value: input.auth ?? noAuthTable(), errors: [] }),
  empty: noAuthTable,
  toToml: (value): TomlTable =>
    JSON.stringify(value) === JSON.stringify(noAuthTable())
      ? {}
      : { auth: JSON.parse(JSON.stringify(value)) },
  secrets: (tree) =>
    (((tree.auth as TomlTable | undefined)?.oidc as TomlTable[] | undefined) ?? []).map(
      (provider, i): SecretSpot => ({
        path: ['auth', 'oidc', i, 'client_secret'],
        suggested: `MON_OIDC_${provider.name}_CLIENT_SECRET`,
        about: `Client secret of OIDC provider ${String(provider.name)}`,
      }),
    ),
});
