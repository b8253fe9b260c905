import type { ChatMessageView, SendFrame } from "~/realtime/chat";
import { sendMessageSchema } from "~/schemas/chat";
import { claimClientId, takeMemberSends } from "~/server/chat-lists.server";
import {
  CLIENT_ID_REUSED,
  CONVERSATION_NOT_FOUND,
  otherMember,
  sendRefusal,
  type RoomRules,
} from "~/server/chat-rules.server";
import { CREDITS_OWED_MESSAGE, INSUFFICIENT_CREDITS_MESSAGE } from "~/server/credits.server";
import { newId } from "~/server/crypto.server";
import { nowIso } from "~/server/db.server";
import { readConfig } from "~/server/env.server";
import { HttpError } from "~/server/errors.server";
import { logFailure } from "~/server/log.server";
import { count } from "~/server/metrics.server";
import {
  activeGift,
  GIFT_REQUIRED,
  giftMessageId,
  refundGift,
  spendForGift,
} from "~/server/gifts.server";
import {
  hasLink,
  LINK_MIN_ACCOUNT_AGE_MS,
  LINKS_NOT_YET,
  recipientSafety,
  senderSafety,
} from "~/server/message-safety.server";
import { notify } from "~/server/notifications.server";
import type { Refusal, RoomResult, SendRequest } from "~/server/room-api.server";
import { parseInput } from "~/server/validation.server";
import { refused, type RoomParts } from "./parts";
import type { Attachment } from "./sockets";
import { messageView } from "./storage";

type SendResult = RoomResult<{ message: ChatMessageView; created: boolean }>;

/**
 * Stores a message and fans it out. With a client id the send is idempotent: the same client id
 * again answers the stored message (`created: false`) and stores nothing; a client id the sender
 * used in another conversation is refused (409). A gift's price is spent first (one D1 batch
 * referenced by the message id, which a retry with the same client id finds rather than spends
 * again); a gift refused after its spend is refunded.
 */
export async function send(room: RoomParts, req: SendRequest): Promise<SendResult> {
  const { env, storage } = room;
  const rules = await room.rules.load(req.conversationId);
  if (!rules) return refused(404, CONVERSATION_NOT_FOUND);
  const me = req.senderId;
  const replay = () => {
    const row = req.clientId ? storage.byClientId(me, req.clientId) : null;
    return row ? messageView(req.conversationId, row) : null;
  };
  const again = (message: ChatMessageView): SendResult => ({
    ok: true,
    value: { message, created: false },
  });
  const refusalNow = () =>
    sendRefusal(room.rules.current ?? rules, me, storage.history(me, otherMember(rules, me)));
  // A retry of a stored message is answered, whatever the rules say now, and is not counted
  // against the send limit (it sends nothing new).
  const earlier = replay();
  if (earlier) return again(earlier);
  // The send limit is the member's across every conversation, counted in their hub
  // (docs/decisions/021), which grants this room a few sends at a time (048): asked last, so
  // that a refused send is not counted.
  const first =
    refusalNow() ??
    contentRefusal(rules, req) ??
    (await room.sends.spend(me, (want, returned) =>
      takeMemberSends(env, me, req.conversationId, req.limit, want, returned),
    ));
  if (first) return { ok: false, refusal: first };

  // The client id is claimed in the sender's hub, unless this room holds the sender's lease
  // (client-ids.ts), checked again just before the message is stored.
  let claimed = false;
  const needsClaim = () =>
    req.clientId !== null && !claimed && !room.clientIds.covers(me, req.clientId);
  const claim = async (): Promise<SendResult | null> => {
    const answer = await claimClientId(env, me, req.clientId!, req.conversationId);
    if (answer.owner !== req.conversationId) {
      const stored = replay();
      return stored ? again(stored) : refused(409, CLIENT_ID_REUSED);
    }
    room.clientIds.take(me, answer.lease);
    claimed = true;
    return null;
  };
  if (needsClaim()) {
    const answer = await claim();
    if (answer) return answer;
  }

  const sentAt = nowIso();
  let id = `${req.conversationId}.${newId()}`;
  let announceGift: (() => Promise<unknown>) | null = null;
  if (req.gift) {
    if (req.clientId) id = await giftMessageId(req.conversationId, me, req.clientId);
    // The gift may be stored already (a retry): then it is answered, and nothing is spent.
    const stored = replay();
    if (stored) return again(stored);
    const spent = await spendForGift(env, {
      messageId: id,
      conversationId: req.conversationId,
      senderId: me,
      recipientId: otherMember(rules, me),
      gift: req.gift,
      text: req.text,
      sentAt,
    });
    if (spent.outcome === "short") return refused(402, INSUFFICIENT_CREDITS_MESSAGE);
    if (spent.outcome === "owed") return refused(402, CREDITS_OWED_MESSAGE);
    if (spent.outcome === "refunded") return refused(409, CLIENT_ID_REUSED);
    announceGift = spent.announce;
  }

  // From here on nothing awaits until the message is stored: the rules are checked again as
  // they are now (a block pushed while the spend was on its way wins), and the client id is
  // claimed if the lease it was to be stored under was taken back meanwhile.
  const refundFor = async (result: SendResult) => {
    if (!result.ok && req.gift) {
      await refundGift(env, { messageId: id, senderId: me, gift: req.gift });
    }
    return result;
  };
  for (;;) {
    const second = refusalNow();
    if (second) {
      // A concurrent send with the same client id may have stored the message meanwhile.
      const stored = replay();
      return stored ? again(stored) : refundFor({ ok: false, refusal: second });
    }
    if (!needsClaim()) break;
    const answer = await claim();
    if (answer) return refundFor(answer);
  }
  const seq = storage.lastSeq() + 1;
  const safety = req.gift || req.attachment ? null : recipientSafety(req.text);
  const stored = storage.insert({
    seq,
    id,
    senderId: me,
    clientId: req.clientId,
    text: req.text,
    gift: req.gift,
    sentAt,
    safety: safety?.kind ?? null,
    attachment: req.attachment ?? null,
  });
  if (!stored) {
    // The same client id was stored while this send awaited its claim or its spend.
    const message = replay();
    if (!message) throw new Error(`Message ${id} is stored already under another client id`);
    return again(message);
  }
  count(room.env, "message_sent");
  room.outbox.queueBoth(seq);
  const message = messageView(req.conversationId, stored);
  // The recipient's sockets get the safety note; the sender's own get the message without it.
  const watching = room.sockets.publish({
    type: "message",
    message: safety ? { ...message, safety } : message,
  });
  // A text is notified when it is the first the recipient has not read (and they are not here).
  if (announceGift || storage.unreadFor(otherMember(rules, me), me) === 1) {
    room.ctx.waitUntil(afterSend(room, rules, message, watching, announceGift));
  }
  if (req.listsBeforeAnswer === false) {
    // Over the socket nothing waits for the lists: they follow at once when the conversation
    // was quiet, and at most once a second while it is busy (one call per hub for a burst).
    room.outbox.flushWithin();
  } else {
    // The sender's next read of the lists shows the message: answer once the hubs have it.
    await room.outbox.flushSoon();
  }
  return { ok: true, value: { message, created: true } };
}

/**
 * What the message-safety rules say before a text is stored (no I/O: precompiled patterns and
 * what the room holds): a link from an account in its first day is refused (422), and text that
 * reads as harassment asks its sender "Are you sure?" (409) unless they confirmed it.
 */
function contentRefusal(rules: RoomRules, req: SendRequest): Refusal | null {
  if (req.gift || req.attachment || !req.text) return null;
  const joinedAt = rules.joinedAt[req.senderId];
  if (
    joinedAt !== undefined &&
    Date.now() - Date.parse(joinedAt) < LINK_MIN_ACCOUNT_AGE_MS &&
    hasLink(req.text)
  ) {
    return { status: 422, message: LINKS_NOT_YET, errors: { message: [LINKS_NOT_YET] } };
  }
  if (req.confirm) return null;
  const safety = senderSafety(req.text);
  return safety ? { status: 409, message: safety.note, safety } : null;
}

/** A message sent over the socket: the same send as POST …/messages. */
export async function sendFromSocket(
  room: RoomParts,
  socket: WebSocket,
  a: Attachment,
  frame: SendFrame,
): Promise<void> {
  let refusal: Refusal;
  try {
    const input = parseInput(sendMessageSchema, {
      message: frame.message,
      client_id: frame.client_id,
      gift_id: frame.gift_id,
      confirm: frame.confirm,
    });
    const gift = input.gift_id ? await activeGift(room.env, input.gift_id) : null;
    if (input.gift_id && !gift) {
      refusal = { status: 422, message: GIFT_REQUIRED };
    } else {
      const result = await send(room, {
        conversationId: a.conversationId,
        senderId: a.userId,
        text: input.message || (gift ? `${gift.icon} ${gift.name}` : ""),
        clientId: input.client_id ?? null,
        gift,
        limit: a.limit ?? readConfig(room.env).rateLimits.chat_send_account,
        confirm: input.confirm,
        listsBeforeAnswer: false,
      });
      if (result.ok) {
        // The same client id again: only the sender needs the stored message back.
        if (!result.value.created)
          room.sockets.reply(socket, { type: "message", message: result.value.message });
        return;
      }
      refusal = result.refusal;
    }
  } catch (error) {
    if (!(error instanceof HttpError)) {
      logFailure("chat_socket_send_failed", error, {
        request_id: a.requestId,
        user_id: a.userId,
        conversation_id: a.conversationId,
      });
    }
    refusal =
      error instanceof HttpError
        ? { status: error.status, message: error.message }
        : { status: 500, message: "Server Error" };
  }
  room.sockets.reply(socket, {
    type: "send_error",
    client_id: frame.client_id,
    status: refusal.status,
    message: refusal.message,
    retry_after: refusal.retryAfter ?? null,
    ...(refusal.safety ? { safety: refusal.safety } : {}),
  });
}

/**
 * What follows a stored message: the recipient's notification. A gift wrote its notification and
 * activities with its spend (spendForGift), and only pushes it now; a text notifies on the first
 * unread message of a streak, unless the recipient is looking.
 */
async function afterSend(
  room: RoomParts,
  rules: RoomRules,
  message: ChatMessageView,
  watching: Promise<string[]>,
  announceGift: (() => Promise<unknown>) | null,
) {
  const recipient = otherMember(rules, message.sender_id);
  try {
    if (announceGift) {
      await announceGift();
      return;
    }
    const open = (await watching).includes(recipient);
    if (room.storage.unreadFor(recipient, message.sender_id) === 1 && !open) {
      await notify(room.env, {
        to: recipient,
        type: "message",
        actorId: message.sender_id,
        data: {
          conversation_id: message.conversation_id,
          message_id: message.id,
          preview: message.message.slice(0, 140),
        },
      });
    }
  } catch (error) {
    logFailure("chat_after_send_failed", error);
  }
}
