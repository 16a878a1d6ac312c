import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inlineScriptsOf, panelPolicy } from './headers.ts';

export const panelDist = join(import.meta.dirname, '..', '..', 'panel', 'dist');

/** The panel's index.html as built (or a placeholder when it is not), and the policy that lets it run. */
export type PanelIndex = { html: string; policy: string };

/** Read once when the app is built: the policy hashes the inline scripts of exactly this file. */
export function loadPanelIndex(panelDir: string): PanelIndex {
  const file = join(panelDir, 'index.html');
  const html = existsSync(file) ? readFileSync(file, 'utf8') : placeholderHtml;
  return { html, policy: panelPolicy(inlineScriptsOf(html)) };
}

const placeholderHtml = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mon</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>mon</h1><p>The panel is not built. Run <code>npm install</code> to build it.</p></main></body></html>
`;
