/**
 * The prompts catalog and its limits, without the schemas (app/schemas/prompts.ts): for the pages
 * that show prompts but never validate a profile (a member's profile, the likes), so that they
 * load no zod.
 */

/**
 * Heartline's prompts (docs/api.md "Distance, travel and prompts"): short questions a member may
 * answer on their profile, up to three, so that others have something to like and to answer. The
 * ids are stable (stored with each answer and each like that lands on one); the texts may be
 * reworded. A stored answer whose prompt has left the catalog is no longer shown.
 */
export const PROMPTS = [
  { id: "weekend-plan", text: "A perfect Saturday for me looks like" },
  { id: "small-joy", text: "A small thing that makes my day" },
  { id: "talk-for-hours", text: "I could talk for hours about" },
  { id: "first-date-idea", text: "My idea of a good first date" },
  { id: "green-flag", text: "A green flag I look for" },
  { id: "hidden-talent", text: "A talent most people don't know I have" },
  { id: "comfort-meal", text: "The meal I'd cook to impress you" },
  { id: "last-laugh", text: "The last thing that made me laugh out loud" },
  { id: "learning-now", text: "Something I'm learning right now" },
  { id: "never-miss", text: "I never miss a chance to" },
  { id: "unpopular-opinion", text: "An opinion I'll happily defend" },
  { id: "travel-story", text: "The best trip I've taken, in one line" },
  { id: "next-trip", text: "The next place I want to see" },
  { id: "sunday-morning", text: "On a slow Sunday morning you'll find me" },
  { id: "friends-say", text: "My friends would describe me as" },
  { id: "looking-for-someone", text: "I'd like to meet someone who" },
  { id: "together-we-could", text: "Together we could" },
  { id: "song-on-repeat", text: "The song I have on repeat" },
  { id: "book-or-film", text: "A book or film that stayed with me" },
  { id: "proud-of", text: "Something I'm quietly proud of" },
  { id: "simple-pleasures", text: "My favourite simple pleasure" },
  { id: "dream-job", text: "If money didn't matter, I'd spend my days" },
  { id: "ask-me-about", text: "Ask me about" },
  { id: "how-i-recharge", text: "How I recharge after a long week" },
  { id: "go-to-karaoke", text: "My go-to karaoke song" },
  { id: "kindness", text: "The kindest thing someone did for me" },
  { id: "childhood-dream", text: "As a child I wanted to be" },
  { id: "pet-peeve", text: "A harmless pet peeve of mine" },
  { id: "best-advice", text: "The best advice I've been given" },
  { id: "love-language", text: "I feel cared for when" },
  { id: "local-spot", text: "My favourite spot in my city" },
  { id: "guilty-pleasure", text: "A guilty pleasure I'm not sorry about" },
  { id: "two-truths", text: "Two truths and a lie" },
  { id: "perfect-evening", text: "A perfect evening in" },
] as const satisfies readonly { id: string; text: string }[];

export type PromptId = (typeof PROMPTS)[number]["id"];
export interface Prompt {
  id: string;
  text: string;
}

/** A member may answer this many prompts, each in this many characters. */
export const PROMPTS_MAX = 3;
export const PROMPT_ANSWER_MAX = 300;

export const PROMPT_MESSAGES = {
  list: "Please choose your prompts from the list.",
  tooMany: "You can answer at most three prompts.",
  unknown: "Please choose one of Heartline's prompts.",
  duplicate: "You have already answered this prompt.",
  answer: "Please write an answer to this prompt.",
  answerMax: "Each answer must be at most 300 characters.",
} as const;

export const promptTexts = new Map<string, string>(PROMPTS.map((p) => [p.id, p.text]));

/** The text of a prompt of the catalog, or null for an id it does not hold. */
export const promptText = (id: string): string | null => promptTexts.get(id) ?? null;

export const isPromptId = (id: unknown): id is PromptId =>
  typeof id === "string" && promptTexts.has(id);

/** One answer as it is stored on the profile (app/server/db/schema.ts `ProfilePrompt`). */
export interface PromptEntry {
  prompt_id: string;
  answer: string;
}

/** An answer as other members see it: the prompt's text with it. */
export interface PromptAnswer {
  prompt_id: string;
  text: string;
  answer: string;
}

/**
 * The stored answers as a profile or a search card shows them, in the member's order: each with
 * its prompt's text; answers whose prompt the catalog no longer holds are left out.
 */
export function promptsForCard(stored: readonly PromptEntry[] | null | undefined): PromptAnswer[] {
  return (stored ?? []).flatMap(({ prompt_id, answer }) => {
    const text = promptText(prompt_id);
    return text ? [{ prompt_id, text, answer }] : [];
  });
}
