import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LIKE_MESSAGES } from "~/schemas/likes";
import { PROMPTS } from "~/schemas/prompts";
import { FREE_DAILY_LIKES } from "~/server/likes.server";
import { LINKS_NOT_YET, SAFETY_NOTES } from "~/server/message-safety.server";
import { verifiedMember } from "../helpers/members";
import { expiryOf, photoUrlsUntil } from "../helpers/photo-urls";
import { memberWithProfile } from "../profile/fixtures";

type Member = Awaited<ReturnType<typeof verifiedMember>>;
type Target =
  | { photo_id: string; photo_url: string }
  | { prompt_id: string; text: string; answer: string }
  | null;
type Card = {
  id: string;
  liked_at?: string;
  comment?: string | null;
  target?: Target;
  comment_safety?: { kind: string; note: string } | null;
};
interface LikesBody {
  received: Card[];
  sent: Card[];
  matches: Card[];
}
interface LikeBody {
  liked?: boolean;
  is_match?: boolean;
  match_comment?: string;
  match_comment_safety?: { kind: string; note: string };
  message?: string;
  safety?: { kind: string; note: string };
  errors?: Record<string, string[]>;
}

const [WEEKEND, SMALL_JOY, TALK] = PROMPTS;

const like = (m: Member, body: Record<string, unknown>) =>
  m.client.json<LikeBody>("POST", "/my/likes", body);

async function lists(m: Member) {
  const res = await m.client.json<LikesBody>("GET", "/my/likes");
  expect(res.status).toBe(200);
  return res.body;
}

const card = (cards: Card[], id: string) => cards.find((c) => c.id === id);

async function photoIds(m: Member) {
  const res = await m.client.json<{ profile: { photos: { id: string }[] } }>("GET", "/my/profile");
  return res.body.profile.photos.map((p) => p.id);
}

async function likeRow(likerId: string, likedId: string) {
  return env.DB.prepare(
    `SELECT created_at, comment, target_photo_id, target_prompt_id FROM likes
     WHERE liker_id = ?1 AND liked_id = ?2`,
  )
    .bind(likerId, likedId)
    .first<{
      created_at: string;
      comment: string | null;
      target_photo_id: string | null;
      target_prompt_id: string | null;
    }>();
}

async function quotaOf(userId: string) {
  const row = await env.DB.prepare("SELECT count FROM like_quota WHERE user_id = ?1")
    .bind(userId)
    .first<{ count: number }>();
  return row?.count ?? 0;
}

async function notificationsOf(userId: string) {
  const { results } = await env.DB.prepare(
    "SELECT type, data FROM notifications WHERE user_id = ?1 ORDER BY seq",
  )
    .bind(userId)
    .all<{ type: string; data: string }>();
  return results.map((r) => ({ type: r.type, data: JSON.parse(r.data) as { comment?: string } }));
}

/** A member with two photos and two answered prompts. */
const likedMember = () =>
  memberWithProfile(
    {
      firstName: "Noor",
      prompts: [
        { prompt_id: WEEKEND!.id, answer: "Markets, then a long lunch" },
        { prompt_id: SMALL_JOY!.id, answer: "The first coffee" },
      ],
    },
    { photos: 2 },
  );

describe("likes that say something", () => {
  it("a comment on a photo reaches the liked member's received card, the sender's, and the notification", async () => {
    const noor = await likedMember();
    const sam = await verifiedMember();
    const [photo] = await photoIds(noor);

    const res = await like(sam, {
      user_id: noor.id,
      comment: "  That market looks wonderful  ",
      target: { photo_id: photo },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ liked: true, is_match: false });

    const received = card((await lists(noor)).received, sam.id) as {
      target: { photo_url: string };
    };
    const urls = await photoUrlsUntil(photo!, noor.id, expiryOf(received.target.photo_url));
    const target = { photo_id: photo, photo_url: urls[720], photo_urls: urls };
    expect(received).toMatchObject({
      comment: "That market looks wonderful",
      target,
    });
    expect(card((await lists(sam)).sent, noor.id)).toMatchObject({
      comment: "That market looks wonderful",
      target,
    });
    expect(await notificationsOf(noor.id)).toMatchObject([
      { type: "like", data: { comment: "That market looks wonderful" } },
    ]);
  });

  it("a like on a prompt shows the prompt's text and the answer; a plain like carries nulls", async () => {
    const noor = await likedMember();
    const sam = await verifiedMember();
    const ava = await verifiedMember();
    expect(
      (await like(sam, { user_id: noor.id, comment: "", target: { prompt_id: SMALL_JOY!.id } }))
        .status,
    ).toBe(201);
    expect((await like(ava, { user_id: noor.id })).status).toBe(201);
    const received = (await lists(noor)).received;
    expect(card(received, sam.id)).toMatchObject({
      comment: null,
      target: { prompt_id: SMALL_JOY!.id, text: SMALL_JOY!.text, answer: "The first coffee" },
    });
    expect(card(received, ava.id)).toMatchObject({ comment: null, target: null });
    // No comment: nothing to tell but the like.
    expect((await notificationsOf(noor.id)).map((n) => n.data.comment)).toEqual([
      undefined,
      undefined,
    ]);
  });

  it("refuses another member's photo, unknown and unanswered prompts, long comments (422, nothing stored)", async () => {
    const noor = await likedMember();
    const other = await memberWithProfile({}, { photos: 1 });
    const sam = await verifiedMember();
    const [othersPhoto] = await photoIds(other);

    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ target: { photo_id: othersPhoto } }, { "target.photo_id": [LIKE_MESSAGES.photo] }],
      [{ target: { photo_id: "no-such-photo" } }, { "target.photo_id": [LIKE_MESSAGES.photo] }],
      [
        { target: { prompt_id: "favourite-colour" } },
        { "target.prompt_id": [LIKE_MESSAGES.prompt] },
      ],
      // In the catalog, but Noor did not answer it.
      [{ target: { prompt_id: TALK!.id } }, { "target.prompt_id": [LIKE_MESSAGES.prompt] }],
      [
        { target: { photo_id: othersPhoto, prompt_id: WEEKEND!.id } },
        { target: [LIKE_MESSAGES.target] },
      ],
      [{ target: "the photo" }, { target: [LIKE_MESSAGES.target] }],
      [{ comment: "x".repeat(301) }, { comment: [LIKE_MESSAGES.commentMax] }],
      [{ comment: 42 }, { comment: [LIKE_MESSAGES.comment] }],
    ];
    for (const [extra, errors] of cases) {
      const res = await like(sam, { user_id: noor.id, ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(422);
      expect(res.body.errors).toEqual(errors);
    }
    expect(await likeRow(sam.id, noor.id)).toBeNull();
    expect(await quotaOf(sam.id)).toBe(0);
    expect(await notificationsOf(noor.id)).toEqual([]);

    // 300 characters, after trimming, is fine.
    const longest = await like(sam, { user_id: noor.id, comment: ` ${"y".repeat(300)} ` });
    expect(longest.status).toBe(201);
    expect((await likeRow(sam.id, noor.id))?.comment).toBe("y".repeat(300));
  });

  it("a target that has gone since shows as null; the comment stays", async () => {
    const noor = await likedMember();
    const sam = await verifiedMember();
    const ava = await verifiedMember();
    const [, second] = await photoIds(noor);
    await like(sam, { user_id: noor.id, comment: "Great light", target: { photo_id: second } });
    await like(ava, { user_id: noor.id, comment: "Same!", target: { prompt_id: WEEKEND!.id } });

    expect((await noor.client.json("DELETE", `/my/photos/${second}`)).status).toBe(204);
    await noor.client.json("PUT", "/my/profile", {
      prompts: [{ prompt_id: SMALL_JOY!.id, answer: "The first coffee" }],
    });
    const received = (await lists(noor)).received;
    expect(card(received, sam.id)).toMatchObject({ comment: "Great light", target: null });
    expect(card(received, ava.id)).toMatchObject({ comment: "Same!", target: null });
  });

  it("liking again with a comment keeps the first time and the day's count, and replaces the comment", async () => {
    const noor = await likedMember();
    const sam = await verifiedMember();
    const [photo] = await photoIds(noor);
    await like(sam, { user_id: noor.id });
    const first = await likeRow(sam.id, noor.id);
    expect(first).toMatchObject({ comment: null, target_photo_id: null });

    const again = await like(sam, {
      user_id: noor.id,
      comment: "Had to say it: lovely smile",
      target: { photo_id: photo },
    });
    expect(again).toMatchObject({ status: 201, body: { liked: true, is_match: false } });
    expect(await likeRow(sam.id, noor.id)).toEqual({
      created_at: first!.created_at,
      comment: "Had to say it: lovely smile",
      target_photo_id: photo,
      target_prompt_id: null,
    });
    // A plain like again keeps what was said.
    await like(sam, { user_id: noor.id });
    expect((await likeRow(sam.id, noor.id))?.comment).toBe("Had to say it: lovely smile");
    // Another comment on a prompt replaces both.
    await like(sam, {
      user_id: noor.id,
      comment: "Which market?",
      target: { prompt_id: WEEKEND!.id },
    });
    expect(await likeRow(sam.id, noor.id)).toMatchObject({
      created_at: first!.created_at,
      comment: "Which market?",
      target_photo_id: null,
      target_prompt_id: WEEKEND!.id,
    });
    expect(await quotaOf(sam.id)).toBe(1);
    // Told once, when the like was new.
    expect((await notificationsOf(noor.id)).map((n) => n.type)).toEqual(["like"]);
  });

  it("keeps the daily limit: a like with a comment past it is 429 and stores nothing", async () => {
    const noor = await likedMember();
    const sam = await verifiedMember();
    const ava = await verifiedMember();
    expect((await like(sam, { user_id: ava.id })).status).toBe(201);
    await env.DB.prepare("UPDATE like_quota SET count = ?1 WHERE user_id = ?2")
      .bind(FREE_DAILY_LIKES, sam.id)
      .run();
    const refused = await like(sam, {
      user_id: noor.id,
      comment: "One more",
      target: { prompt_id: WEEKEND!.id },
    });
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe("You have reached your daily like limit.");
    expect(await likeRow(sam.id, noor.id)).toBeNull();
    // A comment on a like already given is not a new like: it needs none of the day's.
    expect((await like(sam, { user_id: ava.id, comment: "Still here" })).status).toBe(201);
  });

  it("a match tells each member what the other said", async () => {
    const noor = await likedMember();
    const sam = await memberWithProfile({}, { photos: 1 });
    const [samPhoto] = await photoIds(sam);
    await like(sam, {
      user_id: noor.id,
      comment: "Coffee first?",
      target: { prompt_id: SMALL_JOY!.id },
    });

    const back = await like(noor, {
      user_id: sam.id,
      comment: "Always",
      target: { photo_id: samPhoto },
    });
    expect(back.body).toEqual({ liked: true, is_match: true, match_comment: "Coffee first?" });
    const noorHeard = (await notificationsOf(noor.id)).filter((n) => n.type === "match");
    const samHeard = (await notificationsOf(sam.id)).filter((n) => n.type === "match");
    expect(noorHeard).toMatchObject([{ data: { comment: "Coffee first?" } }]);
    expect(samHeard).toMatchObject([{ data: { comment: "Always" } }]);
    // Liking again after the match still names it.
    expect((await like(sam, { user_id: noor.id })).body).toEqual({
      liked: true,
      is_match: true,
      match_comment: "Always",
    });
  });

  it("a block hides the like and its comment both ways, and no comment crosses it", async () => {
    const noor = await likedMember();
    const sam = await verifiedMember();
    const ava = await verifiedMember();
    await like(sam, { user_id: noor.id, comment: "Hi Noor", target: { prompt_id: WEEKEND!.id } });
    await like(noor, { user_id: ava.id, comment: "Hi Ava" });

    await noor.client.json("POST", "/my/block", { user_id: sam.id, reason_type: "spam" });
    await ava.client.json("POST", "/my/block", { user_id: noor.id, reason_type: "spam" });
    expect(card((await lists(noor)).received, sam.id)).toBeUndefined();
    expect(card((await lists(sam)).sent, noor.id)).toBeUndefined();
    expect(card((await lists(ava)).received, noor.id)).toBeUndefined();
    expect(card((await lists(noor)).sent, ava.id)).toBeUndefined();
    expect(JSON.stringify(await lists(noor))).not.toContain("Hi Noor");

    // Blocked either way: 404 before anything about the target is said.
    const refused = await like(sam, {
      user_id: noor.id,
      comment: "Please",
      target: { prompt_id: "no-such-prompt" },
    });
    expect(refused.status).toBe(404);
    expect((await like(noor, { user_id: ava.id, comment: "Sorry" })).status).toBe(404);
    expect(await likeRow(sam.id, noor.id)).toBeNull();
  });
});

/** Makes a member's account `days` old. */
async function ageAccount(m: Member, days: number) {
  const createdAt = new Date(Date.now() - days * 86_400_000).toISOString();
  await env.DB.prepare("UPDATE users SET created_at = ?1 WHERE id = ?2")
    .bind(createdAt, m.id)
    .run();
}

describe("a like's comment passes message safety", () => {
  it("asks 'Are you sure?' (409, nothing stored, no like used) before harassment, and sends it confirmed", async () => {
    const noor = await likedMember();
    const sam = await verifiedMember();
    const harsh = "you're so ugly, nobody will ever love you";

    const asked = await like(sam, { user_id: noor.id, comment: harsh });
    expect(asked.status).toBe(409);
    expect(asked.body).toEqual({
      message: SAFETY_NOTES.harassment,
      safety: { kind: "harassment", note: SAFETY_NOTES.harassment },
    });
    expect(await likeRow(sam.id, noor.id)).toBeNull();
    expect(await quotaOf(sam.id)).toBe(0);
    expect(await notificationsOf(noor.id)).toEqual([]);

    const sent = await like(sam, { user_id: noor.id, comment: harsh, confirm: true });
    expect(sent.status).toBe(201);
    expect((await likeRow(sam.id, noor.id))?.comment).toBe(harsh);
    // Harassment is the sender's question, not a warning for the reader.
    expect(card((await lists(noor)).received, sam.id)?.comment_safety).toBeNull();
  });

  it("refuses a link from an account in its first day (422 on comment), and takes it later with a warning", async () => {
    const noor = await likedMember();
    const sam = await verifiedMember();
    const comment = "My photos are at https://example.com/sam, have a look";

    const refused = await like(sam, { user_id: noor.id, comment });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ comment: [LINKS_NOT_YET] });
    expect(await likeRow(sam.id, noor.id)).toBeNull();

    await ageAccount(sam, 2);
    expect((await like(sam, { user_id: noor.id, comment })).status).toBe(201);
    expect(card((await lists(noor)).received, sam.id)).toMatchObject({
      comment,
      comment_safety: { kind: "link", note: SAFETY_NOTES.link },
    });
  });

  it("warns its reader of an ask to move elsewhere or for money, in Likes, the notification and the match; never its writer", async () => {
    const noor = await likedMember();
    const sam = await memberWithProfile({}, { photos: 1 });
    const offPlatform = "You seem lovely, add me on WhatsApp and we can talk there";
    await like(sam, { user_id: noor.id, comment: offPlatform });

    const warning = { kind: "off_platform", note: SAFETY_NOTES.off_platform };
    expect(card((await lists(noor)).received, sam.id)).toMatchObject({
      comment: offPlatform,
      comment_safety: warning,
    });
    expect(card((await lists(sam)).sent, noor.id)).not.toHaveProperty("comment_safety");
    expect(await notificationsOf(noor.id)).toMatchObject([
      { type: "like", data: { comment: offPlatform, comment_safety: warning } },
    ]);

    // Noor likes back: the match moment shows Sam's words with the warning; Sam's notification of
    // the match carries Noor's words, which need none.
    const back = await like(noor, { user_id: sam.id, comment: "Happy to chat here" });
    expect(back.body).toEqual({
      liked: true,
      is_match: true,
      match_comment: offPlatform,
      match_comment_safety: warning,
    });
    const samHeard = (await notificationsOf(sam.id)).filter((n) => n.type === "match");
    expect(samHeard).toHaveLength(1);
    expect(samHeard[0]!.data).toEqual(expect.objectContaining({ comment: "Happy to chat here" }));
    expect(samHeard[0]!.data).not.toHaveProperty("comment_safety");

    // A comment changed by liking again is checked again.
    const money = "Can you send me some money for the flight? I will pay you back";
    const lena = await likedMember();
    await like(sam, { user_id: lena.id, comment: "Hello" });
    expect(card((await lists(lena)).received, sam.id)?.comment_safety).toBeNull();
    await like(sam, { user_id: lena.id, comment: money });
    expect(card((await lists(lena)).received, sam.id)).toMatchObject({
      comment: money,
      comment_safety: { kind: "money", note: SAFETY_NOTES.money },
    });
  });
});

describe("likes that say something, on the pages", () => {
  const html = async (m: Member, path: string) => {
    const res = await m.client.fetch(path, { headers: { Accept: "text/html" } });
    expect(res.status).toBe(200);
    // React separates adjacent texts with empty comments: read the page as a member would.
    return (await res.text()).replaceAll("<!-- -->", "");
  };

  it("the likes page shows the comment and the answer it landed on", async () => {
    const noor = await likedMember();
    const sam = await verifiedMember();
    await like(sam, {
      user_id: noor.id,
      comment: "Coffee & a walk?",
      target: { prompt_id: SMALL_JOY!.id },
    });
    const page = await html(noor, "/my/likes");
    expect(page).toContain("Coffee &amp; a walk?");
    expect(page).toContain("Liked your answer to");
    expect(page).toContain(SMALL_JOY!.text);
    expect(page).toContain("The first coffee");
    const sent = await html(sam, "/my/likes");
    expect(sent).toContain("You liked Noor&#x27;s answer to");
  });

  it("the dashboard's Liked you strip marks the likes that said something, with their words unless warned of", async () => {
    const noor = await likedMember();
    const sam = await verifiedMember();
    const lena = await verifiedMember();
    const quiet = await verifiedMember();
    const money = "Can you send me some money for the flight? I will pay you back";
    await like(sam, { user_id: noor.id, comment: "Coffee & a walk?" });
    await like(lena, { user_id: noor.id, comment: money });
    await like(quiet, { user_id: noor.id });

    const summary = await noor.client.json<{
      new_likes: { members: Card[] };
    }>("GET", "/dashboard");
    expect(summary.status).toBe(200);
    const members = summary.body.new_likes.members;
    expect(card(members, sam.id)).toMatchObject({
      comment: "Coffee & a walk?",
      comment_safety: null,
    });
    expect(card(members, lena.id)).toMatchObject({
      comment: money,
      comment_safety: { kind: "money", note: SAFETY_NOTES.money },
    });
    expect(card(members, quiet.id)).toMatchObject({ comment: null, comment_safety: null });

    const page = await html(noor, "/dashboard");
    expect(page.match(/class="face-said"/g)).toHaveLength(2);
    expect(page).toContain("wrote: “Coffee &amp; a walk?”");
    expect(page).toContain("wrote with their like: read it in Likes");
    expect(page).not.toContain("wrote: “Can you send");
  });

  it("a profile has a heart on its photo and on each answer, and none on my own", async () => {
    const noor = await likedMember();
    const sam = await verifiedMember();
    const page = await html(sam, `/members/${noor.details.username}`);
    expect(page).toContain('aria-label="Like Noor&#x27;s photo 1"');
    expect(page).toContain(`aria-label="Like Noor&#x27;s answer to “${WEEKEND!.text}”"`);
    expect(page).toContain(`aria-label="Like Noor&#x27;s answer to “${SMALL_JOY!.text}”"`);
    const own = await html(noor, `/members/${noor.details.username}`);
    expect(own).not.toContain('class="like-target"');
  });
});
