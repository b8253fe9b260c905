import { Hono } from "hono";
import { readMailbox } from "~/server/mail.server";
import { wantsJson } from "../http";
import type { AppBindings } from "../types";

/** Local development only: the app answers here only when devMailboxOpen (env.server.ts). */
export const devApi = new Hono<AppBindings>();

devApi.get("/dev/mailbox", async (c, next) => {
  if (!wantsJson(c)) return next();
  return c.json({ emails: await readMailbox(c.env) });
});
