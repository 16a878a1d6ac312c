import type { Cause } from '../../../../protocol/incidents.ts';
import { ExternalLink } from '../../components/ExternalLink.tsx';
import { formatWhen } from '../../lib/format.ts';
import { causeKindLabel, factorLabel, scoreText } from './describe.ts';

/** Likely causes, best first: each with its score, the factors that make it up, its evidence and what speaks against it. */
export function Causes({ causes }: { causes: Cause[] }) {
  if (causes.length === 0) {
    return (
      <p className="no-cause" data-testid="no-cause">
        <strong>No likely cause found.</strong> No deploy, change or other state change before the start
        explains it well enough to name.
      </p>
    );
  }
  return (
    <ol className="causes">
      {causes.map((cause, i) => (
        <li key={`${cause.kind}${cause.title}`} className="cause" data-kind={cause.kind} data-rank={i + 1}>
          <div className="cause-head">
            <strong>{cause.title}</strong>
            <span className="badge">{causeKindLabel[cause.kind]}</span>
            <span className="score" title="Score: the product of the factors below">
              {scoreText(cause.score)}
            </span>
          </div>
          <table className="factors">
            <caption className="sr-only">How the score of {cause.title} is made</caption>
            <tbody>
              {cause.factors.map((f) => (
                <tr key={f.name} data-factor={f.name}>
                  <th scope="row">{factorLabel[f.name]}</th>
                  <td className="num">× {f.value.toFixed(2)}</td>
                  <td>{f.why}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <ul className="evidence" aria-label="Evidence">
            {cause.evidence.map((e) => (
              <li key={`${e.ts}${e.what}`}>
                <time dateTime={new Date(e.ts).toISOString()}>{formatWhen(e.ts)}</time>{' '}
                <ExternalLink url={e.url}>{e.what}</ExternalLink>
                {e.by ? <span className="muted"> by {e.by}</span> : null}
              </li>
            ))}
          </ul>
          {cause.counter.length > 0 ? (
            <div className="counter">
              <span className="muted small">Against it:</span>
              <ul>
                {cause.counter.map((c) => (
                  <li key={c}>{c}</li>
                ))}
              </ul>
            </div>
          ) : null}
        </li>
      ))}
    </ol>
  );
}
