import { sql } from "drizzle-orm";
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sessions, users } from "./schema";

/**
 * Web push subscriptions (docs/decisions/031): one row per browser profile that allowed pushes,
 * under the member who last signed in there. `endpoint` is the push service's URL for that
 * browser (a capability: whoever knows it can post to it), `p256dh` and `auth` the browser's keys
 * for encrypting to it (RFC 8291), base64url as `PushSubscription.toJSON()` gives them.
 */
export const pushSubscriptions = sqliteTable(
  "push_subscriptions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    endpoint: text("endpoint").notNull(),
    p256dh: text("p256dh").notNull(),
    auth: text("auth").notNull(),
    createdAt: text("created_at")
      .notNull()
      .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`),
    /**
     * The session the browser subscribed in: when it ends (signing out, a password change,
     * "sign out everywhere", its expiry), the browser stops getting the member's pushes.
     */
    sessionHash: text("session_hash").references(() => sessions.idHash, { onDelete: "cascade" }),
  },
  (t) => [
    uniqueIndex("push_subscriptions_endpoint").on(t.endpoint),
    index("push_subscriptions_user").on(t.userId, t.createdAt),
    index("push_subscriptions_session").on(t.sessionHash),
  ],
);
