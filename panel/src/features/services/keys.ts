/** Query keys of services: the list (`GET /services`) and one service (`GET /services/{name}`). */
export const serviceKeys = {
  list: ['services'] as const,
  /** Every query of one service. */
  all: ['service'] as const,
  one: (name: string) => ['service', name] as const,
};
