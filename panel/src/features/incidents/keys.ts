/** Ranges of the incident list (`?range=` of `GET /incidents`): open ones always, resolved ones in range. */
export const incidentRanges = ['7d', '30d', '1y'] as const;
export type IncidentRange = (typeof incidentRanges)[number];

/**
 * Query keys of incidents: the list (stream key `incidents`) and one incident (`incident:<id>`).
 * The list's keys start with ['incidents'], one incident's with ['incident', id].
 */
export const incidentKeys = {
  all: ['incidents'] as const,
  list: (range: IncidentRange) => ['incidents', range] as const,
  one: (id: string) => ['incident', id] as const,
};
