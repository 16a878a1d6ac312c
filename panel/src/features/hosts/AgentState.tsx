import type { AgentInfo } from '../../../../protocol/hosts.ts';
import { agentStateOf } from './describe.ts';

const shapes = { connected: '●', silent: '▼', none: '○' } as const;
const looks = { connected: 'up', silent: 'down', none: 'unknown' } as const;

/** An agent's state as colour, shape and word, with when in the title (and beside it when `detail`). */
export function AgentState({ agent, detail = false }: { agent: AgentInfo | null; detail?: boolean }) {
  const s = agentStateOf(agent);
  return (
    <span className="agent-state" data-agent={s.state}>
      <span className={`status status-${looks[s.state]}`} title={s.detail}>
        <span className="shape" aria-hidden="true">
          {shapes[s.state]}
        </span>
        {s.label}
      </span>
      {detail && s.state !== 'none' ? <span className="muted small"> {s.detail}</span> : null}
    </span>
  );
}
