/** A link given by a deploy, a change or a code host, as an href only when it is http or https. */
export function externalHref(url: string | null): string | null {
  if (url === null) return null;
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}
