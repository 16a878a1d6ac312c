/** The install commands `POST /api/v1/hosts` answers once: a `docker run` line and a systemd install. */
export function installCommands(_input: { serverUrl: string; token: string; hostName: string }): {
  docker: string;
  systemd: string;
} {
  return { docker: '', systemd: '' };
}
