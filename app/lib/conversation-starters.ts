/**
 * First lines for a conversation that has no messages yet, drawn from the other member's profile:
 * an interest both members share first, then one of theirs, then an open question. Each is a
 * message the member can send as it is or change.
 */
export const STARTERS_MAX = 3;

export function conversationStarters({
  name,
  theirInterests,
  myInterests,
}: {
  /** The other member's first name (or username). */
  name: string;
  theirInterests: readonly string[];
  myInterests: readonly string[];
}): string[] {
  const mine = new Set(myInterests.map((i) => i.trim().toLowerCase()));
  const shared = theirInterests.filter((i) => mine.has(i.trim().toLowerCase()));
  const theirsOnly = theirInterests.filter((i) => !mine.has(i.trim().toLowerCase()));
  const starters: string[] = [];
  if (shared[0]) {
    starters.push(`Hi ${name}! I'm into ${shared[0].toLowerCase()} too. How did you get started?`);
  }
  for (const interest of theirsOnly.slice(0, shared[0] ? 1 : 2)) {
    starters.push(`Hi ${name}! What do you love most about ${interest.toLowerCase()}?`);
  }
  starters.push(`Hi ${name}! What's the best thing that happened to you this week?`);
  starters.push(`Hi ${name}, your profile made me smile. How's your day going?`);
  return starters.slice(0, STARTERS_MAX);
}
