import type { AddedHost } from '../../../../protocol/hosts.ts';
import { CopyField } from '../../components/Copy.tsx';
import { closeAndFocus, useFocusOnMount } from '../../lib/focus.ts';

/**
 * A host's new token and install commands, shown once: they live only in the state of the screen that
 * asked for them, so a reload or another page forgets them. Done gives the focus back to `returnTo`, the
 * id of the control that asked for them.
 */
export function Installed({
  added,
  onDone,
  returnTo,
}: {
  added: AddedHost;
  onDone: () => void;
  returnTo: string;
}) {
  const heading = useFocusOnMount<HTMLHeadingElement>();
  return (
    <section className="secret-once installed" aria-labelledby="installed-title" data-testid="installed">
      <h2 id="installed-title" ref={heading} tabIndex={-1}>
        {added.replaced ? `New token for ${added.name}` : `${added.name} added`}
      </h2>
      <p>
        <strong>Copy the token and an install command now: they will not be shown again.</strong> mon keeps
        only a hash of the token. If you lose it, make a new token on the host's page.
        {added.replaced
          ? ` The old token of ${added.name} has stopped working: its agent is refused until it runs with this one.`
          : ''}
      </p>
      <h3>Token</h3>
      <p className="muted small">
        The agent's <code>MON_TOKEN</code>; the commands below already hold it.
      </p>
      <CopyField value={added.token} label="Host token" />
      <h3>Docker</h3>
      <p className="muted small">
        Run as root on the host: writes the settings with the token to <code>/etc/mon-agent/env</code> (mode
        0600) and runs the agent in a container, with the host's root mounted read-only and the container
        runtime's socket mounted. The agent only sends <code>GET</code> requests to the socket, but{' '}
        <code>:ro</code> does not stop writes through a socket: whoever can open it controls the host. To have
        that enforced, mount a proxy's socket that passes only the agent's requests (docs/host-metrics.md).
      </p>
      <CopyField value={added.install.docker} label="Docker command" multiline />
      <h3>systemd</h3>
      <p className="muted small">
        Run as root on the host, which needs Node: fetches the agent as one file from{' '}
        <code>{added.agentUrl}</code> and runs it as a systemd service.
      </p>
      <CopyField value={added.install.systemd} label="systemd install" multiline />
      <p className="muted small">
        The agent only connects out to this server; the host needs no open port. It appears as connected
        within 15 seconds of starting. Run again on a host (a new token), either replaces only{' '}
        <code>MON_SERVER</code>, <code>MON_TOKEN</code> and <code>MON_ALLOW_HTTP</code> in{' '}
        <code>/etc/mon-agent/env</code>: lines added there (a proxy, a CA) stay.
      </p>
      <button type="button" onClick={() => closeAndFocus(onDone, returnTo)}>
        Done: I have copied what I need
      </button>
    </section>
  );
}
