/**
 * What moderators read of a kept conversation (app/server/evidence.server.ts): one message, who
 * wrote it (the reported member or the reporter), its text, when, and whether it was deleted.
 */
export interface EvidenceMessage {
  from: "reported" | "reporter";
  text: string;
  sent_at: string;
  deleted_at: string | null;
  /** A gift's name, for a gift. */
  gift: string | null;
  /** "photo" or "voice", for an attachment. */
  attachment: string | null;
}
