import type { Tx } from '../store/writer.ts';
import type { TrackerItem } from './types.ts';

/**
 * Stores a batch of tracker events in one writer job: sessions, raw page views, the hourly and daily
 * rollups (aggregated over the batch first), Web Vitals histograms and error groups.
 */
export function applyTrackerItems(tx: Tx, items: readonly TrackerItem[]): void {
  void tx;
  void items;
  throw new Error('apply: to be built');
}
