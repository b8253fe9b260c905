import { z } from "./zod";

/**
 * Travel (docs/api.md "Distance, travel and prompts"): the place a subscriber searches from and is
 * found in before a trip. ISO codes for the country and state, the city by name, as in the search
 * filters; the server checks the place against the location dataset.
 */
export const TRAVEL_MESSAGES = {
  country: "Choose a country from the list.",
  state: "Choose a state from the list.",
  city: "Choose a city from the list.",
  cityNeedsState: "Choose a state before a city.",
  place: "Choose a place from the list.",
  perk: "Travel is part of a subscription.",
} as const;

const optionalName = (max: number, message: string) =>
  z.preprocess(
    (v) => (v === "" || v === null ? undefined : v),
    z.string({ error: message }).trim().min(1, message).max(max, message).optional(),
  );

export const travelSchema = z
  .object({
    country: z
      .string({ error: TRAVEL_MESSAGES.country })
      .trim()
      .regex(/^[A-Za-z]{2}$/, TRAVEL_MESSAGES.country)
      .transform((v) => v.toUpperCase()),
    state: optionalName(10, TRAVEL_MESSAGES.state),
    city: optionalName(100, TRAVEL_MESSAGES.city),
  })
  .superRefine((t, ctx) => {
    if (t.city && !t.state) {
      ctx.addIssue({ code: "custom", path: ["city"], message: TRAVEL_MESSAGES.cityNeedsState });
    }
  });

export type TravelInput = z.output<typeof travelSchema>;

/** Where a member travels: the dataset's names, and since when. */
export interface Travel {
  country: { isoCode: string; name: string };
  state: { isoCode: string; name: string } | null;
  city: { name: string } | null;
  started_at: string;
}
