import { useId, useState } from 'react';
import type { AnalyticsList, AnalyticsRow, AnalyticsRows } from '../../../../protocol/analytics.ts';
import { OTHER_VALUE } from '../../../../protocol/analytics-constants.ts';
import { ErrorBox } from '../../components/Feedback.tsx';
import { closeAndFocus, useFocusOnMount } from '../../lib/focus.ts';
import { useDebounced } from './debounce.ts';
import {
  formatCount,
  listTitles,
  listTotalText,
  NOT_EXACT_NOTE,
  rankedBy,
  sharePercent,
  valueText,
  valueTitle,
} from './describe.ts';
import type { Range } from './keys.ts';
import { useAnalyticsList } from './queries.ts';

const limits = [100, 250, 500, 1000] as const;

type Props = {
  site: string;
  range: Range;
  list: AnalyticsList;
  /** The list's ten first rows and how many values it has. */
  top: AnalyticsRows;
  /** The range's total of the figure the list ranks by (views for pages, visitors otherwise), for the bars. */
  whole: number;
};

/** One top list: its ten first rows with a bar of their share, and a view of more rows with a search. */
export function TopList({ site, range, list, top, whole }: Props) {
  const [more, setMore] = useState(false);
  const { title } = listTitles[list];
  const headingId = useId();
  const moreId = `${headingId}-more`;
  return (
    <section className="card top-list" aria-labelledby={headingId} data-list={list}>
      <div className="card-head">
        <h2 id={headingId}>{title}</h2>
        <span className="muted small" title={top.exact ? undefined : NOT_EXACT_NOTE}>
          {listTotalText(top)} in all
        </span>
      </div>
      {more ? (
        <MoreRows
          site={site}
          range={range}
          list={list}
          whole={whole}
          onClose={() => closeAndFocus(() => setMore(false), moreId)}
        />
      ) : (
        <>
          <Rows list={list} rows={top.rows} whole={whole} />
          {top.total > top.rows.length ? (
            <div className="card-foot">
              <button type="button" id={moreId} className="link-button" onClick={() => setMore(true)}>
                More {title.toLowerCase()}…
              </button>
            </div>
          ) : null}
        </>
      )}
    </section>
  );
}

/** Rows of a list, each with a bar of its share behind its value; an empty list says so. */
function Rows({ list, rows, whole }: { list: AnalyticsList; rows: AnalyticsRow[]; whole: number }) {
  if (rows.length === 0) return <p className="empty">None in this range.</p>;
  const by = rankedBy(list);
  const mono = list === 'pages';
  return (
    <table className="dim-rows">
      <thead>
        <tr>
          <th>{listTitles[list].value}</th>
          <th className="num">{by === 'views' ? 'Views' : 'Visitors'}</th>
          <th className="num">{by === 'views' ? 'Visitors' : 'Views'}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.value} data-value={r.value}>
            <td className="dim-value">
              <span
                className="dim-bar"
                style={{ width: `${sharePercent(r[by], whole)}%` }}
                aria-hidden="true"
              />
              <span
                className={mono && r.value !== OTHER_VALUE ? 'mono' : undefined}
                title={valueTitle(list, r.value)}
              >
                {valueText(list, r.value)}
              </span>
            </td>
            <td className="num">{formatCount(r[by])}</td>
            <td className="num muted">{formatCount(by === 'views' ? r.visitors : r.views)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Every value of a list matching a search, up to a limit; the server is asked once typing pauses. */
function MoreRows({
  site,
  range,
  list,
  whole,
  onClose,
}: {
  site: string;
  range: Range;
  list: AnalyticsList;
  whole: number;
  onClose: () => void;
}) {
  const [search, setSearch] = useState('');
  const [limit, setLimit] = useState<number>(limits[0]);
  const query = { search: useDebounced(search.trim()), limit };
  const rows = useAnalyticsList(site, list, range, query);
  const searchBox = useFocusOnMount<HTMLInputElement>();
  const id = useId();
  const { title, value } = listTitles[list];
  return (
    // A group, so that Escape works from any of its controls: as in search fields, the first clears
    // what is typed, the next closes the search (and the focus goes back to "More …").
    <fieldset
      className="card-body more-rows"
      aria-label={`More ${title.toLowerCase()}`}
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.stopPropagation();
        if (search === '') return onClose();
        // The search box's own Escape would clear it too; one way, for every control of the group.
        e.preventDefault();
        setSearch('');
      }}
    >
      <div className="row">
        <div className="field">
          <label htmlFor={`${id}-search`}>Search {title.toLowerCase()}</label>
          <input
            id={`${id}-search`}
            ref={searchBox}
            type="search"
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
            placeholder={list === 'pages' ? '/blog' : `Part of a ${value.toLowerCase()}`}
            autoComplete="off"
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-limit`}>Rows</label>
          <select id={`${id}-limit`} value={limit} onChange={(e) => setLimit(Number(e.currentTarget.value))}>
            {limits.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorBox error={rows.error} title="Could not load the list." />
      {rows.data ? (
        <>
          <p className="muted small" aria-live="polite" data-testid="more-count">
            {rows.data.total === 0
              ? 'Nothing matches.'
              : `${formatCount(rows.data.rows.length)} of ${listTotalText(rows.data)}${query.search ? ` matching “${query.search}”` : ''}`}
            {rows.data.exact ? null : ` ${NOT_EXACT_NOTE}`}
          </p>
          {rows.data.rows.length > 0 ? <Rows list={list} rows={rows.data.rows} whole={whole} /> : null}
        </>
      ) : rows.isPending ? (
        <p className="muted small">Loading…</p>
      ) : null}
      <button type="button" onClick={onClose}>
        Back to the top ten
      </button>
    </fieldset>
  );
}
