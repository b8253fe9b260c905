import { Form, useNavigation } from "@remix-run/react";
import { Icon } from "~/components/icons";
import { CsrfInput } from "~/components/form";

/**
 * "Message" on another member's profile: starts (or finds) the conversation with them and opens
 * it on the chat page. A plain form to the chat page's action, so it works without JavaScript.
 */
export function MessageButton({
  userId,
  name,
  label = "Message",
  iconOnly = false,
}: {
  userId: string;
  name: string;
  label?: string;
  /** Only the icon (a narrow card): the name is then `${label} ${name}`, and the tooltip says so. */
  iconOnly?: boolean;
}) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formAction === "/chat";
  return (
    <Form method="post" action="/chat" className="message-button">
      <CsrfInput />
      <input type="hidden" name="user_id" value={userId} />
      {iconOnly ? (
        <button
          type="submit"
          className="btn btn-secondary btn-sm btn-icon"
          disabled={busy}
          aria-label={`${label} ${name}`}
          title={`${label} ${name}`}
        >
          <Icon name="chat" size={18} />
        </button>
      ) : (
        <button type="submit" className="btn btn-primary" disabled={busy}>
          <Icon name="chat" size={18} /> {busy ? "Opening…" : label}
          <span className="sr-only"> {name}</span>
        </button>
      )}
    </Form>
  );
}
