import { applyD1Migrations, env } from "cloudflare:test";

// Setup files run outside isolated storage: migrations apply once per test file and every test
// starts from the migrated, empty database.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
