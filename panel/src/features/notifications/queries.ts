import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ChannelBody, ChannelCreated, ChannelTestResult } from '../../../../protocol/notify.ts';
import { del, enc, post, put } from '../../lib/api.ts';
import { channelKeys } from './keys.ts';

/** Reloads what shows channels after a change. */
export function useRefreshChannels(): () => Promise<void> {
  const client = useQueryClient();
  return async () => {
    void client.invalidateQueries({ queryKey: channelKeys.warnings });
    await client.invalidateQueries({ queryKey: channelKeys.settings });
  };
}

/** Adds a channel (`editing` null) or changes the one named `editing`. */
export async function saveChannel(body: ChannelBody, editing: string | null): Promise<void> {
  if (editing === null) await post<ChannelCreated>('/channels', body);
  else await put(`/channels/${enc(editing)}`, body);
}

export function useDeleteChannel(onSettled: () => void) {
  const refresh = useRefreshChannels();
  return useMutation({
    mutationFn: (name: string) => del(`/channels/${enc(name)}`),
    onSettled: () => {
      onSettled();
      void refresh();
    },
  });
}

/** The test button: sends a test message; the result (delivered or why not) is the mutation's data. */
export function useTestChannel() {
  return useMutation({
    mutationFn: (name: string) => post<ChannelTestResult>(`/channels/${enc(name)}/test`),
  });
}
