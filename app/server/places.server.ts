import type { Job } from "./housekeeping.server";
import { placePoint } from "./geo.server";

/**
 * Places' coordinates for members who saved their place before places had them
 * (docs/decisions/040): every place saved since is saved with its coordinates (geo.server.ts,
 * locationPoint).
 */
const FILL_JOB = "fill_place_coordinates";

/**
 * The housekeeping cron's walk through the profiles that have a place but no coordinates (the
 * members who set their place before places had them: the profiles_without_coordinates index),
 * in member id order, a batch per step, resumed where the last trigger stopped (`job_cursors`),
 * until it reaches the end; every place saved since is saved with its coordinates. A place the
 * dataset no longer knows keeps none (the member is found by name, not by distance).
 */
export const FILL_PLACE_COORDINATES: Job = {
  name: FILL_JOB,
  async run(env, now, { batchSize, maxBatches }) {
    const state = await env.DB.prepare(
      "SELECT cursor, finished_at FROM job_cursors WHERE name = ?1",
    )
      .bind(FILL_JOB)
      .first<{ cursor: string | null; finished_at: string | null }>();
    if (state?.finished_at) return { deleted: 0, batches: 0, done: true };
    let cursor = state?.cursor ?? "";
    let filled = 0;
    for (let batches = 1; batches <= maxBatches; batches++) {
      const rows = (
        await env.DB.prepare(
          `SELECT user_id, country_code, state_code, city_name FROM profiles
             INDEXED BY profiles_without_coordinates
           WHERE latitude IS NULL AND country_code IS NOT NULL AND user_id > ?1
           ORDER BY user_id LIMIT ?2`,
        )
          .bind(cursor, batchSize)
          .all<{
            user_id: string;
            country_code: string;
            state_code: string | null;
            city_name: string | null;
          }>()
      ).results;
      const updates: D1PreparedStatement[] = [];
      for (const row of rows) {
        const at = await placePoint(env, {
          countryCode: row.country_code,
          stateCode: row.state_code,
          cityName: row.city_name,
        });
        if (!at) continue;
        updates.push(
          env.DB.prepare(
            `UPDATE profiles SET latitude = ?1, longitude = ?2
             WHERE user_id = ?3 AND latitude IS NULL AND country_code IS ?4
               AND state_code IS ?5 AND city_name IS ?6`,
          ).bind(
            at.latitude,
            at.longitude,
            row.user_id,
            row.country_code,
            row.state_code,
            row.city_name,
          ),
        );
      }
      if (updates.length) await env.DB.batch(updates);
      filled += updates.length;
      const done = rows.length < batchSize;
      if (rows.length) cursor = rows.at(-1)!.user_id;
      await env.DB.prepare(
        `INSERT INTO job_cursors (name, cursor, finished_at, updated_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (name) DO UPDATE SET cursor = excluded.cursor,
           finished_at = excluded.finished_at, updated_at = excluded.updated_at`,
      )
        .bind(
          FILL_JOB,
          cursor,
          done ? new Date(now).toISOString() : null,
          new Date(now).toISOString(),
        )
        .run();
      if (done) return { deleted: filled, batches, done: true };
    }
    return { deleted: filled, batches: maxBatches, done: false };
  },
};
