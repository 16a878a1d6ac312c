/**
 * Rules for text that mon shows or sends as written: names shown in the panel and used in URLs, and
 * check targets. Text that would look or travel differently from what was typed is refused. Plain
 * functions without the schema library, so that the agent can load them (text.ts builds the schema).
 */

/**
 * Controls (C0, DEL, C1), format characters (zero-width spaces, direction marks) and line or paragraph
 * separators: invisible in the panel, and a URL parser drops some of them silently.
 */
const hidden = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * A character that shows: a letter, digit, punctuation or symbol that is not ignorable (Hangul fillers,
 * variation selectors) and not the blank braille pattern.
 */
const shows = /[[\p{L}\p{N}\p{P}\p{S}]--[\p{Default_Ignorable_Code_Point}\u2800]]/v;

/** Why `text` cannot be shown or sent as written (hidden characters, broken Unicode), or null. */
export function hiddenTextProblem(text: string): string | null {
  // A lone surrogate half is not a character: it cannot be encoded, shown or sent.
  if (!text.isWellFormed()) return 'must be valid Unicode text (it holds half of a surrogate pair)';
  if (hidden.test(text)) return 'must not contain control characters, line breaks or invisible formatting';
  return null;
}

/** Whether `text` has at least one character that shows. */
export function hasVisibleCharacter(text: string): boolean {
  return shows.test(text);
}

/** Why `name` (trimmed) cannot name a check, heartbeat, service or host, or null. */
export function nameProblem(name: string): string | null {
  if (name === '') return 'must not be empty';
  if (name.length > 100) return 'must be at most 100 characters';
  const problem = hiddenTextProblem(name);
  if (problem) return problem;
  if (/[/\\?#]/.test(name)) return 'must not contain /, \\, ? or #';
  if (!hasVisibleCharacter(name)) return 'must contain a visible character (a letter, digit or sign)';
  return null;
}
