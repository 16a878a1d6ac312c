/**
 * Query keys of the overview. The screen reads the services list (features/services) today; `all` is
 * the overview read of its own, which the `overview` stream key reloads as well.
 */
export const overviewKeys = {
  all: ['overview'] as const,
};
