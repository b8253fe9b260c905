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
      const found: {
        id: string;
        lat: number;
        lng: number;
        c: string;
        s: string | null;
        y: string | null;
      }[] = [];
      // A country's file at a time (geo.server.ts keeps a few of them).
      const byCountry = [...rows].sort((a, b) => a.country_code.localeCompare(b.country_code));
      for (const row of byCountry) {
        const at = await placePoint(env, {
          countryCode: row.country_code,
          stateCode: row.state_code,
          cityName: row.city_name,
        });
        if (at) {
          found.push({
            id: row.user_id,
            lat: at.latitude,
            lng: at.longitude,
            c: row.country_code,
            s: row.state_code,
            y: row.city_name,
          });
        }
      }
      // One statement for the batch; a member whose place changed since it was read keeps the
      // coordinates their save gave them.
      if (found.length) {
        await env.DB.prepare(
          `UPDATE profiles SET latitude = v.lat, longitude = v.lng
           FROM (SELECT j.value->>'id' AS id, j.value->>'lat' AS lat, j.value->>'lng' AS lng,
                   j.value->>'c' AS c, j.value->>'s' AS s, j.value->>'y' AS y
                 FROM json_each(?1) j) v
           WHERE profiles.user_id = v.id AND profiles.latitude IS NULL
             AND profiles.country_code IS v.c AND profiles.state_code IS v.s
             AND profiles.city_name IS v.y`,
        )
          .bind(JSON.stringify(found))
          .run();
      }
      filled += found.length;
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
