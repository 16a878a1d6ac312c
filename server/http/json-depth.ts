import { badRequest } from '../problem.ts';

/**
 * How deep arrays and objects may nest in a JSON request body. mon's deepest body, an agent's frames
 * (body, frames, a sample, its containers, one, its labels), nests 6 levels; a code host's webhook a few
 * more. `JSON.parse` of text nested deeper costs seconds per megabyte (16 million `[` in a 32 MiB body:
 * 12 s and 1.3 GB), all of it on the event loop, so such bodies are refused before they are parsed.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Throws a 400 naming the body when `text`, JSON about to be parsed, nests arrays and objects deeper
 * than MAX_JSON_DEPTH. One pass over the text that skips the contents of strings (escapes included);
 * it stops at the first level too deep. It does not validate: text that is not JSON is left to the parser.
 */
export function refuseDeepJson(text: string): void {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // To the closing quote: a backslash escapes the character after it, a quote among them.
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > MAX_JSON_DEPTH) {
        throw badRequest(`the body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
      }
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
}
