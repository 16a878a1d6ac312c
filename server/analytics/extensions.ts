/**
 * Schemes of scripts that browser extensions inject into pages: their errors are the extension's,
 * not the site's. Safari masks extension URLs as `webkit-masked-url://hidden/`.
 */
const extensionUrl =
  /\b(?:chrome-extension|moz-extension|safari-extension|safari-web-extension|webkit-masked-url):\/\//i;

/**
 * Where a tracker error (`x` event) shows that it comes from a browser extension: its script (`s`),
 * a frame of its stack (`st`), or null when neither does.
 */
export function extensionField(error: {
  s?: string | undefined;
  st?: string | undefined;
}): 's' | 'st' | null {
  if (extensionUrl.test(error.s ?? '')) return 's';
  if (extensionUrl.test(error.st ?? '')) return 'st';
  return null;
}
