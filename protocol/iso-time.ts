/**
 * `new Date(ms).toISOString()` without a Date: in Node the first Date formatted starts V8's date cache,
 * which loads ICU's time zone and calendar code and data, about 0.9 MB of memory the agent keeps for
 * the rest of its life to write its log's time stamps (docs/agent.md, "Footprint").
 */

const DAY_MS = 86_400_000;

/** `2026-01-01T12:00:00.000Z`, exactly as `Date.prototype.toISOString` writes it. */
export function isoTime(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  const { year, month, date } = civilDay(day);
  // Years of more than four digits, and invalid times, are Date's to write (or to throw on).
  if (!Number.isInteger(ms) || year < 0 || year > 9999) return new Date(ms).toISOString();
  const inDay = ms - day * DAY_MS;
  return (
    `${pad(year, 4)}-${pad(month, 2)}-${pad(date, 2)}T${pad(Math.floor(inDay / 3_600_000), 2)}:` +
    `${pad(Math.floor(inDay / 60_000) % 60, 2)}:${pad(Math.floor(inDay / 1000) % 60, 2)}.${pad(inDay % 1000, 3)}Z`
  );
}

/** `2026-01-01`: the UTC day of `ms`. */
export function isoDate(ms: number): string {
  return isoTime(ms).slice(0, 10);
}

/** The proleptic Gregorian date of a day counted from 1970-01-01 (the "days to civil" algorithm). */
function civilDay(days: number): { year: number; month: number; date: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shifted = Math.floor((5 * dayOfYear + 2) / 153); // months from March
  const date = dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1;
  const month = shifted < 10 ? shifted + 3 : shifted - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, date };
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}
