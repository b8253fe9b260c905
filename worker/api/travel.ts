import { Hono } from "hono";
import { travelSchema } from "~/schemas/travel";
import * as travel from "~/server/travel.server";
import { parseInput, readBody } from "~/server/validation.server";
import { currentUser, requireVerified } from "../middleware/auth";
import type { AppBindings } from "../types";

/** docs/api.md "Distance, travel and prompts": travel, a subscriber perk. */
export const travelApi = new Hono<AppBindings>();

travelApi.use("/my/travel", requireVerified);

travelApi.get("/my/travel", async (c) => {
  const { user } = currentUser(c);
  return c.json({ travel: await travel.currentTravel(c.env, user.id) });
});

travelApi.put("/my/travel", async (c) => {
  const { user } = currentUser(c);
  const input = parseInput(travelSchema, await readBody(c.req.raw));
  return c.json({ travel: await travel.setTravel(c.env, user.id, input) });
});

travelApi.delete("/my/travel", async (c) => {
  const { user } = currentUser(c);
  await travel.endTravel(c.env, user.id);
  return c.body(null, 204);
});
