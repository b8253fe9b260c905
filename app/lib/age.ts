/** Age in whole years on `today` of someone born on `dateOfBirth` (YYYY-MM-DD), in UTC. */
export function ageOn(dateOfBirth: string, today: Date = new Date()): number {
  const [y, m, d] = dateOfBirth.split("-").map(Number) as [number, number, number];
  let age = today.getUTCFullYear() - y;
  const month = today.getUTCMonth() + 1;
  if (month < m || (month === m && today.getUTCDate() < d)) age -= 1;
  return age;
}

/** True when YYYY-MM-DD names a real calendar day. */
export function isRealDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

export const MINIMUM_AGE = 18;

/** The latest date of birth (YYYY-MM-DD) of someone who is 18 at `now`, for a date picker's max. */
export function latestAdultBirthday(now: number): string {
  const d = new Date(now);
  d.setUTCFullYear(d.getUTCFullYear() - MINIMUM_AGE);
  return d.toISOString().slice(0, 10);
}
