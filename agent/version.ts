import packageJson from './package.json' with { type: 'json' };

/**
 * The agent's version as it tells the server (the hello's `agentVersion`, the poll's `version`, its
 * User-Agent) and `--version` prints. In the one-file agent, agent/build.ts replaces this module: the
 * version is then the package's plus a hash of the bundle's code, `0.1.0+3f9a1c2b7d4e`, which changes
 * whenever the agent's code does, so the server can tell an agent that runs the file it serves from
 * one built from other code (docs/agent.md, "Updating agents"). Run from the sources, `0.1.0+source`.
 */
export const AGENT_VERSION: string = `${packageJson.version}+source`;
