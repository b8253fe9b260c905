import { Hono } from "hono";
import { blockSchema } from "~/schemas/block";
import { pageParam } from "~/schemas/query";
import * as blocks from "~/server/blocks.server";
import { parseInput, readBody } from "~/server/validation.server";
import { currentUser, requireVerified } from "../middleware/auth";
import type { AppBindings } from "../types";

/** docs/api.md "Blocking". */
export const blocksApi = new Hono<AppBindings>();

blocksApi.use("/my/block/*", requireVerified);
blocksApi.use("/my/block", requireVerified);
blocksApi.use("/my/blocked-users", requireVerified);

blocksApi.get("/my/blocked-users", async (c) => {
  const { user } = currentUser(c);
  const page = pageParam.parse(c.req.query("page") ?? 1);
  return c.json(await blocks.listBlocked(c.env, user.id, page));
});

blocksApi.post("/my/block", async (c) => {
  const { user } = currentUser(c);
  const input = parseInput(blockSchema, await readBody(c.req.raw));
  return c.json(await blocks.blockMember(c.env, user.id, input));
});

blocksApi.delete("/my/block/:userId", async (c) => {
  const { user } = currentUser(c);
  return c.json(await blocks.unblockMember(c.env, user.id, c.req.param("userId")));
});

blocksApi.get("/my/block/check/:userId", async (c) => {
  const { user } = currentUser(c);
  return c.json(await blocks.blockStatus(c.env, user.id, c.req.param("userId")));
});
