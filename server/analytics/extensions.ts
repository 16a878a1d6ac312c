/**
 * Schemes of scripts that browser extensions inject into pages: their errors are the extension's,
 * not the site's. Safari masks extension URLs as `webkit-masked-url://hidden/`.
 */
const extensionUrl =
  /\b(?:chrome-extension|moz-extension|safari-extension|safari-web-extension|webkit-masked-url):\/\//i;

/** Whether a JavaScript error comes from a browser extension: its script or any frame of its stack. */
export function fromExtension(error: { script?: string | undefined; stack?: string | undefined }): boolean {
  return extensionUrl.test(error.script ?? '') || extensionUrl.test(error.stack ?? '');
}
