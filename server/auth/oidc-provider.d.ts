// oidc-provider (a devDependency, used only by tests as a real provider on loopback) ships no types.
declare module 'oidc-provider';
