import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { conversationStarters } from "~/lib/conversation-starters";
import { displayName } from "~/lib/members";
import { HttpError } from "~/server/errors.server";
import { requireVerifiedUser } from "~/server/guards.server";
import { viewMember } from "~/server/members.server";
import { loadProfile } from "~/server/profiles.server";

/**
 * GET /chat/starters/{username}: first lines for an empty conversation with that member, drawn
 * from both profiles. Reading them is not a profile view; a member hidden from the reader is 404.
 */
export async function loader({ context, request, params }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  try {
    const [member, me] = await Promise.all([
      viewMember(context.env, user.id, params.username ?? ""),
      loadProfile(context.env, user.id),
    ]);
    const starters = conversationStarters({
      name: displayName(member),
      theirInterests: member.interests,
      myInterests: me.interests,
    });
    return json({ starters }, { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) {
      return json({ message: "Member not found." }, { status: 404 });
    }
    throw error;
  }
}
