import type { Gift } from "~/schemas/chat";

/**
 * Messages written on this device that the server has not stored yet, kept in the browser
 * (IndexedDB, by client id; a photo's or voice note's file with it, as the Blob it was) so that
 * neither a lost connection nor a reload loses one: the chat
 * sends them again when the connection returns or the conversation opens, with the same client
 * id, so the room stores each once and gives it its place in the order then. An entry leaves when
 * the server stored the message or refused it (the member sees why), or when the member discards
 * it. Entries are the writer's: another member signing in on this browser never sends them.
 */
export interface OutboxEntry {
  client_id: string;
  conversation_id: string;
  sender_id: string;
  /** The text as written (may be empty for a gift). */
  message: string;
  gift: Gift | null;
  /** When it was written here (the order they are sent again in). */
  written_at: string;
  /** A photo or voice note: its file and how it is sent (absent for text and gifts). */
  attachment?: OutgoingAttachment;
}

export interface OutgoingAttachment {
  file: Blob;
  name: string;
  kind: "photo" | "voice";
  view_once: boolean;
  /** A voice note's length as recorded (its bubble shows it until the server's). */
  duration_ms?: number;
}

const DATABASE = "heartline-chat";
const STORE = "outbox";

let opening: Promise<IDBDatabase | null> | null = null;

/** The database, or null where the browser has no IndexedDB (or refuses it: private modes). */
function database(): Promise<IDBDatabase | null> {
  if (typeof indexedDB === "undefined") return Promise.resolve(null);
  opening ??= new Promise<IDBDatabase | null>((resolve) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => {
      const store = request.result.createObjectStore(STORE, { keyPath: "client_id" });
      store.createIndex("conversation", "conversation_id");
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => resolve(null);
    request.onblocked = () => resolve(null);
  });
  return opening;
}

function run<T>(
  mode: IDBTransactionMode,
  work: (store: IDBObjectStore) => IDBRequest<T>,
): Promise<T | null> {
  return database().then(
    (db) =>
      new Promise<T | null>((resolve) => {
        if (!db) return resolve(null);
        try {
          const request = work(db.transaction(STORE, mode).objectStore(STORE));
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => resolve(null);
        } catch {
          resolve(null);
        }
      }),
  );
}

/** Keeps a message until the server has it. */
export async function keepOutgoing(entry: OutboxEntry): Promise<void> {
  await run("readwrite", (store) => store.put(entry));
}

/** The server stored or refused it, or the member discarded it. */
export async function forgetOutgoing(clientId: string): Promise<void> {
  await run("readwrite", (store) => store.delete(clientId));
}

/** `senderId`'s messages of a conversation still to send, in the order they were written. */
export async function outgoingFor(
  conversationId: string,
  senderId: string,
): Promise<OutboxEntry[]> {
  const all = await run("readonly", (store) =>
    store.index("conversation").getAll(IDBKeyRange.only(conversationId)),
  );
  return ((all ?? []) as OutboxEntry[])
    .filter((e) => e.sender_id === senderId)
    .sort((a, b) => a.written_at.localeCompare(b.written_at));
}

/** Signing out: nothing written here stays on the device. */
export async function clearOutgoing(): Promise<void> {
  await run("readwrite", (store) => store.clear());
}
