import { createHash, createHmac, randomBytes } from "node:crypto";
import { BENCH_APP_KEY, type BenchState } from "../lib/worker";

/**
 * The chat benchmarks' members (bench/chat/run.ts, bench/chat/attachments.ts), written straight
 * into D1: no password hashing, no email round trip.
 */

/** Credits each member starts with (gifts are paid with them). */
const MEMBER_CREDITS = 1_000_000;

export interface Member {
  id: string;
  cookie: string;
  csrf: string;
}

/** Verified members with a profile, a long session, a CSRF secret and credits, written into D1. */
export async function seedMembers(count: number, states: BenchState[]): Promise<Member[]> {
  const now = new Date().toISOString();
  const expires = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const members: Member[] = [];
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `chatbench${i.toString(36).padStart(4, "0")}${randomBytes(5).toString("hex")}`;
    const token = randomBytes(32).toString("base64url");
    const hash = createHash("sha256").update(token).digest("hex");
    const secret = randomBytes(32).toString("base64url");
    lines.push(
      `INSERT INTO users (id, username, email, password_hash, email_verified_at) VALUES ('${id}', 'chat_bench_${i}', 'chat-bench${i}@bench.test', 'unused', '${now}');`,
      `INSERT INTO profiles (user_id, date_of_birth) VALUES ('${id}', '1990-01-01');`,
      `INSERT INTO sessions (id_hash, user_id, remember, created_at, last_active_at, expires_at) VALUES ('${hash}', '${id}', 1, '${now}', '${now}', '${expires}');`,
      `INSERT INTO credit_transactions (id, user_id, amount, direction, reason, reference, created_at) VALUES ('bench-${id}', '${id}', ${MEMBER_CREDITS}, 'in', 'bench', '${id}', '${now}');`,
      `INSERT INTO user_credits (user_id, balance, lifetime_earned) VALUES ('${id}', ${MEMBER_CREDITS}, ${MEMBER_CREDITS});`,
    );
    members.push({
      id,
      cookie: `heartline_session=${token}; heartline_csrf=${secret}`,
      csrf: createHmac("sha256", BENCH_APP_KEY).update(`csrf:${secret}`).digest("base64url"),
    });
  }
  for (const s of states) await s.executeSql("seed.sql", lines);
  return members;
}
