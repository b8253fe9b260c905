import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  // The core tables, then one file per later concern.
  schema: [
    "./app/server/db/schema.ts",
    "./app/server/db/blocks.ts",
    "./app/server/db/notifications.ts",
    "./app/server/db/activity.ts",
    "./app/server/db/chat.ts",
    "./app/server/db/safety.ts",
    "./app/server/db/likes.ts",
    "./app/server/db/search.ts",
    "./app/server/db/money.ts",
    "./app/server/db/push.ts",
  ],
  out: "./migrations",
});
