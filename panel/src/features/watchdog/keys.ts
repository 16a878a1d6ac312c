/** Query keys of the watchdog screen. */
export const watchdogKeys = {
  read: ['watchdog'] as const,
};
