import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { SettingsRead } from '../../../protocol/notify.ts';
import { get } from './api.ts';

/**
 * The settings read (`GET /api/v1/settings`): channels, silences and maintenance windows. Shared by
 * the channels and windows screens and the forms that start a silence from a service or an incident.
 */
export const settingsKey = ['settings'] as const;

export function useSettings() {
  return useQuery({ queryKey: settingsKey, queryFn: () => get<SettingsRead>('/settings') });
}

/** Reloads the settings read after a change. */
export function useRefreshSettings(): () => Promise<void> {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: settingsKey });
}
