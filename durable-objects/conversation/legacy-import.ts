import {
  indexLegacyMessages,
  LEGACY_PAGE,
  legacyMemberStates,
  legacyMessages,
} from "~/server/chat-migration.server";
import { otherMember } from "~/server/chat-rules.server";
import { memberHub } from "~/server/member-hub.server";
import type { RoomParts } from "./parts";
import { readRules } from "./rules";

/**
 * Moves the conversation's messages stored in D1 before the rooms held them into the room
 * (docs/decisions/012-chat-in-rooms.md "Migration"): the messages as they were (an id or seq
 * already here is skipped, so a rerun changes nothing), each member's read position (the
 * furthest wins) and list state, and D1's index of where they now live.
 */
export async function importLegacy(room: RoomParts, conversationId: string): Promise<void> {
  const { ctx, env, storage } = room;
  const rules = await readRules(env, conversationId);
  if (!rules) return;
  storage.rememberFacts(conversationId, rules);
  const states = await legacyMemberStates(env, conversationId);
  let moved = 0;
  for (let after = 0; ;) {
    const page = await legacyMessages(env, conversationId, after);
    if (!page || page.length === 0) break;
    ctx.storage.transactionSync(() => {
      for (const m of page) storage.insertLegacy(m);
    });
    moved += page.length;
    after = page.at(-1)!.seq;
    if (page.length < LEGACY_PAGE) break;
  }
  if (states) {
    for (const state of states) storage.mergeLastRead(state.user_id, state.last_read_seq);
    if (moved > 0) await indexLegacyMessages(env, conversationId);
    // The members' own list state first; the room's entries then fill in the rest.
    await Promise.all(
      states.map((state) =>
        memberHub(env, state.user_id).importListState(
          {
            conversation_id: conversationId,
            other_id: otherMember(rules, state.user_id),
            activity_at: rules.createdAt,
          },
          state.listed === 1,
          state.archived_at,
        ),
      ),
    );
  }
  storage.markImported();
  if (states) {
    room.outbox.queueBoth(null);
    await room.outbox.flushSoon();
  }
}
