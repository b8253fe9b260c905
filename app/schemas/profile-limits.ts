/**
 * The limits of a profile's fields, without the schemas (app/schemas/profile.ts): for the pages
 * that show a field (the search filters' interests and ages) but never validate a profile, so
 * that they load no zod.
 */
export const AGE_RANGE = { minLow: 18, minHigh: 99, maxLow: 19, maxHigh: 100 } as const;
export const BIO_MAX = 2000;
export const LIST_MAX_ITEMS = 20;
export const LIST_ITEM_MAX = 40;
