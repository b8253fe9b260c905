import { Hono } from "hono";
import { activitiesQuerySchema } from "~/schemas/activities";
import {
  notificationPreferencesSchema,
  notificationsQuerySchema,
  privacySchema,
} from "~/schemas/notifications";
import { listActivities } from "~/server/activities.server";
import {
  getNotificationPreferences,
  listNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  setNotificationPreferences,
} from "~/server/notifications.server";
import { getHideOnline, setHideOnline } from "~/server/presence.server";
import { parseInput, readBody } from "~/server/validation.server";
import { wantsJson } from "../http";
import { currentUser, requireUser, requireVerified, verifiedUser } from "../middleware/auth";
import type { AppBindings } from "../types";

/**
 * docs/api.md "Notifications", the member's switches for them and for their online status, and
 * their own history (activities). GET /notifications and GET /my/activities are also pages: a
 * browser falls through to Remix.
 */
export const notificationsApi = new Hono<AppBindings>();

notificationsApi.get("/notifications", async (c, next) => {
  if (!wantsJson(c)) return next();
  const user = verifiedUser(c);
  const query = notificationsQuerySchema.parse(c.req.query());
  return c.json(
    await listNotifications(c.env, user.id, { page: query.page, perPage: query.per_page }),
  );
});

notificationsApi.post("/notifications/read-all", requireVerified, async (c) => {
  const { user } = currentUser(c);
  return c.json(await markAllNotificationsRead(c.env, user.id));
});

notificationsApi.post("/notifications/:id/read", requireVerified, async (c) => {
  const { user } = currentUser(c);
  return c.json(await markNotificationRead(c.env, user.id, c.req.param("id")));
});

notificationsApi.get("/my/notification-preferences", requireUser, async (c) => {
  const { user } = currentUser(c);
  return c.json(await getNotificationPreferences(c.env, user.id));
});

notificationsApi.put("/my/notification-preferences", requireUser, async (c) => {
  const { user } = currentUser(c);
  const changes = parseInput(notificationPreferencesSchema, await readBody(c.req.raw));
  return c.json(await setNotificationPreferences(c.env, user.id, changes));
});

notificationsApi.get("/my/privacy", requireUser, async (c) => {
  const { user } = currentUser(c);
  return c.json({ hide_online: await getHideOnline(c.env, user.id) });
});

notificationsApi.put("/my/privacy", requireUser, async (c) => {
  const { user } = currentUser(c);
  const { hide_online } = parseInput(privacySchema, await readBody(c.req.raw));
  return c.json({ hide_online: await setHideOnline(c.env, user.id, hide_online) });
});

notificationsApi.get("/my/activities", async (c, next) => {
  if (!wantsJson(c)) return next();
  const user = verifiedUser(c);
  const query = activitiesQuerySchema.parse(c.req.query());
  return c.json(
    await listActivities(c.env, user.id, { page: query.page, perPage: query.per_page }),
  );
});
