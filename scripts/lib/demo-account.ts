/**
 * The account a newcomer signs in with after `npm run seed` (README, browser tests). Every other
 * seeded member has the same password, so a developer can sign in as any of them too.
 */
export const DEMO_EMAIL = "demo@heartline.app";
export const DEMO_PASSWORD = "heartline-demo";
export const DEMO_USERNAME = "demo";
