import type {
  ActionFunctionArgs,
  HeadersFunction,
  LinksFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { json, redirect } from "@remix-run/cloudflare";
import {
  useActionData,
  useLoaderData,
  useSearchParams,
  type ShouldRevalidateFunction,
} from "@remix-run/react";
import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import { ConversationList, type ListTab } from "~/components/chat/conversation-list";
import { ChatThread } from "~/components/chat/thread";
import { FormAlert } from "~/components/form";
import { AppShell } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { subscribeMemberChannel } from "~/realtime/client";
import { usePresenceWatch } from "~/realtime/use-presence-watch";
import { startConversationSchema } from "~/schemas/chat";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { listConversations, listMessages, startConversation } from "~/server/chat.server";
import { isPrefetch } from "~/server/context.server";
import { HttpError } from "~/server/errors.server";
import { requireVerifiedUser } from "~/server/guards.server";
import { parseInput, readBody } from "~/server/validation.server";
import {
  chatMeAtom,
  chatStateAtom,
  chatUnreadTotalAtom,
  loadArchivedAtom,
  loadConversationsAtom,
  openConversationAtom,
} from "~/state/chat-actions";
import {
  conversationOpened,
  conversationsLoaded,
  conversationUpdated,
  initialChatState,
  isListed,
  openConversation,
  totalUnread,
} from "~/state/chat";
import { useAtomValue, useHydrateAtoms, useSetAtom } from "~/state/jotai";
import chatStyles from "~/styles/chat.css?url";
import menuStyles from "~/styles/menu.css?url";

export const meta: MetaFunction = () => titleMeta("Chat");
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: menuStyles },
  { rel: "stylesheet", href: chatStyles },
];

/** Personal pages: never stored by a shared cache or kept for the back button. */
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/**
 * The member's active conversations and, when the address names one, its newest messages (which
 * marks it read, as opening it does), rendered with the page. A conversation the member may not
 * read, or a prefetch on hover, leaves the messages to the browser (which shows why it cannot).
 */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  const requested = new URL(request.url).searchParams.get("conversation");
  const [page, opened] = await Promise.all([
    listConversations(context.env, user.id),
    requested && !isPrefetch(request)
      ? listMessages(context.env, user.id, requested).then(
          (messages) => ({ id: requested, ...messages }),
          (error: unknown) => {
            if (error instanceof HttpError) return null;
            throw error;
          },
        )
      : null,
  ]);
  return json(
    { me: user.id, ...page, opened },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

/**
 * "Message" on a member's profile posts here (a plain form, so it works without JavaScript):
 * starts or finds the conversation and opens it.
 */
export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const { user } = requireVerifiedUser(context, request);
    const input = parseInput(startConversationSchema, await readBody(request));
    const { conversation } = await startConversation(context.env, user.id, input);
    return redirect(`/chat?conversation=${encodeURIComponent(conversation.id)}`);
  });
}

/**
 * Opening another conversation only changes the query string: the page keeps its state and its
 * sockets instead of loading the list again.
 */
export const shouldRevalidate: ShouldRevalidateFunction = ({
  currentUrl,
  nextUrl,
  formMethod,
  defaultShouldRevalidate,
}) => {
  if (!formMethod && currentUrl.pathname === nextUrl.pathname) return false;
  return defaultShouldRevalidate;
};

export default function ChatPage() {
  const data = useLoaderData<typeof loader>();
  useHydrateAtoms([
    [chatMeAtom, data.me],
    [
      chatStateAtom,
      conversationOpened(
        conversationsLoaded(initialChatState, data.conversations, data.meta),
        data.opened,
      ),
    ],
  ]);
  return (
    <AppShell>
      <Chat />
    </AppShell>
  );
}

/**
 * The chat fills the window below the site header, whatever height the header takes, and above
 * the phone's tab bar when it shows (the body's bottom padding keeps its room), so that the list
 * and the conversation scroll inside, the composer stays in view and the page itself never
 * scrolls. `view` (list or thread) changes whether the tab bar shows.
 */
function useFillWindow(ref: RefObject<HTMLElement | null>, view: string) {
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const fit = () => {
      const top = el.getBoundingClientRect().top + window.scrollY;
      const below = parseFloat(getComputedStyle(document.body).paddingBottom) || 0;
      el.style.height = `${Math.max(320, window.innerHeight - top - below)}px`;
    };
    fit();
    window.addEventListener("resize", fit);
    const header = document.querySelector("header");
    const observer = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(fit);
    if (header) observer?.observe(header);
    return () => {
      window.removeEventListener("resize", fit);
      observer?.disconnect();
    };
  }, [ref, view]);
}

function Chat() {
  const data = useLoaderData<typeof loader>();
  const frame = useRef<HTMLDivElement>(null);
  const actionData = useActionData<ActionErrors>();
  const state = useAtomValue(chatStateAtom);
  const setState = useSetAtom(chatStateAtom);
  const setMe = useSetAtom(chatMeAtom);
  const setUnreadTotal = useSetAtom(chatUnreadTotalAtom);
  const loadConversations = useSetAtom(loadConversationsAtom);
  const loadArchived = useSetAtom(loadArchivedAtom);
  const open = useSetAtom(openConversationAtom);
  const [params, setParams] = useSearchParams();
  const [tab, setTab] = useState<ListTab>("active");
  const requested = params.get("conversation");
  useFillWindow(frame, state.activeConversationId ? "thread" : "list");

  // Coming back to the page: the store may hold an older list than the one just rendered.
  useEffect(() => {
    setMe(data.me);
    setState((s) =>
      conversationOpened(conversationsLoaded(s, data.conversations, data.meta), data.opened),
    );
  }, [data, setMe, setState]);

  useEffect(() => {
    void loadArchived();
  }, [loadArchived]);

  // The conversation named in the URL is the open one; the one whose messages came with the page
  // needs no second load.
  const preloaded = useRef(data.opened?.id ?? null);
  useEffect(() => {
    if (requested !== null && requested === preloaded.current) {
      preloaded.current = null;
      return;
    }
    preloaded.current = null;
    void open(requested);
  }, [requested, open]);

  // Conversations that are not open change through the member's own channel.
  useEffect(
    () =>
      subscribeMemberChannel({
        open: () => {
          void loadConversations();
          void loadArchived();
        },
        frame: (frame) => {
          if (frame.type !== "conversation") return;
          let known = true;
          setState((s) => {
            known = isListed(s, frame.conversation_id);
            return known ? conversationUpdated(s, frame) : s;
          });
          if (!known) void loadConversations();
        },
      }),
    [setState, loadConversations, loadArchived],
  );

  // The header's badge follows the list while the page is open.
  const unread = totalUnread(state);
  useEffect(() => setUnreadTotal(unread), [unread, setUnreadTotal]);

  const select = useCallback(
    (id: string | null) => {
      const next = new URLSearchParams(params);
      if (id) next.set("conversation", id);
      else next.delete("conversation");
      setParams(next, { preventScrollReset: true });
    },
    [params, setParams],
  );

  const active = openConversation(state);
  const isArchived = Boolean(active && state.archivedConversations.some((c) => c.id === active.id));
  usePresenceWatch([
    ...(active ? [active.user_id] : []),
    ...(tab === "active" ? state.conversations : state.archivedConversations).map((c) => c.user_id),
  ]);

  // A conversation opened by link that is in neither list yet (just started, or further down).
  useEffect(() => {
    if (state.activeConversationId && !active && !state.isLoadingConversations) {
      void loadConversations();
    }
    // Only when the open conversation changes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state.activeConversationId]);

  return (
    <div className="chat" ref={frame} data-view={state.activeConversationId ? "thread" : "list"}>
      <ConversationList
        tab={tab}
        onTab={setTab}
        conversations={state.conversations}
        archived={state.archivedConversations}
        activeId={state.activeConversationId}
        onOpen={select}
        isLoading={state.isLoadingConversations}
        hasMore={state.hasMoreConversations}
        onLoadMore={() => void loadConversations(true)}
      />
      <div className="chat-main">
        {actionData?.message ? <FormAlert message={actionData.message} /> : null}
        {state.error ? (
          <div className="chat-error">
            <FormAlert message={state.error} />
            <button
              type="button"
              className="icon-btn"
              aria-label="Dismiss"
              onClick={() => setState((s) => ({ ...s, error: null }))}
            >
              ×
            </button>
          </div>
        ) : null}
        {active ? (
          <ChatThread
            key={active.id}
            conversation={active}
            archived={isArchived}
            onBack={() => select(null)}
          />
        ) : (
          <div className="thread-placeholder">
            <p className="muted">
              {!state.activeConversationId
                ? "Choose a conversation to start chatting."
                : state.isLoadingConversations
                  ? "Loading conversation…"
                  : "This conversation is not in your lists."}
            </p>
          </div>
        )}
      </div>
    </div>
  );
}
