import { useMutation } from '@tanstack/react-query';
import type { WindowBody, WindowKind } from '../../../../protocol/notify.ts';
import type { Created } from '../../../../protocol/reads.ts';
import { del, enc, post, put } from '../../lib/api.ts';
import { useRefreshSettings } from '../../lib/settings.ts';
import { kindWords } from './model.ts';

/**
 * Writes of silences and maintenance windows; the settings read (`lib/settings.ts`) lists them and
 * reloads after each change.
 */

const pathOf = (kind: WindowKind) => `/${kindWords[kind].path}`;

/** Makes a window (`id` null) or changes one. */
export function saveWindow(kind: WindowKind, id: string | null, body: WindowBody): Promise<unknown> {
  return id === null ? post<Created>(pathOf(kind), body) : put(`${pathOf(kind)}/${enc(id)}`, body);
}

/** Ends a window in force, or deletes one not started; the list reloads whether it worked or not. */
export function useEndWindow(onSettled: () => void) {
  const refresh = useRefreshSettings();
  return useMutation({
    mutationFn: ({ kind, id }: { kind: WindowKind; id: string }) => del(`${pathOf(kind)}/${enc(id)}`),
    onSettled: () => {
      onSettled();
      void refresh();
    },
  });
}
