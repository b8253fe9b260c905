import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { CsrfInput, FormAlert } from "~/components/form";
import { titleMeta } from "~/lib/title";
import {
  notificationFormSchema,
  NOTIFICATION_TYPE_LABELS,
  NOTIFICATION_TYPES,
} from "~/schemas/notifications";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { requireUser } from "~/server/guards.server";
import {
  getNotificationPreferences,
  setNotificationPreferences,
} from "~/server/notifications.server";
import { parseInput, readBody } from "~/server/validation.server";

export const meta: MetaFunction = () => titleMeta("Notification Settings");

const HINTS: Record<(typeof NOTIFICATION_TYPES)[number], string> = {
  message: "When someone writes to you in a conversation you do not have open",
  like: "When someone likes you",
  match: "When you and someone like each other",
  gift: "When someone sends you a gift",
  profile_view: "When someone looks at your profile (once a day per member)",
};

export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireUser(context, request);
  return json({ preferences: await getNotificationPreferences(context.env, user.id) });
}

/** Every switch is in the form, on or off (see the schema's `checkbox`). */
export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const { user } = requireUser(context, request);
    const form = parseInput(notificationFormSchema, await readBody(request));
    const changes = Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, form[t] === "on"]));
    const preferences = await setNotificationPreferences(context.env, user.id, changes);
    return json({ preferences, status: "Notification settings saved." });
  });
}

export default function NotificationSettingsPage() {
  const { preferences } = useLoaderData<typeof loader>();
  const data = useActionData<ActionErrors | { status: string }>();
  const navigation = useNavigation();
  return (
    <section className="card">
      <h2>Notifications</h2>
      <p className="muted">
        Choose what Heartline tells you about, live and in your notifications.
      </p>
      <Form method="post" className="form">
        <CsrfInput />
        <FormAlert message={data && "status" in data ? data.status : null} tone="success" />
        <FormAlert message={data && "errors" in data ? data.message : null} />
        <fieldset className="switch-list">
          <legend className="sr-only">Notify me about</legend>
          {NOTIFICATION_TYPES.map((type) => (
            <label key={type} className="switch-row">
              <input type="hidden" name={type} value="off" />
              <input type="checkbox" name={type} defaultChecked={preferences[type]} />
              <span>
                <strong>{NOTIFICATION_TYPE_LABELS[type]}</strong>
                <span className="muted small">{HINTS[type]}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <div>
          <button
            type="submit"
            className="btn btn-primary"
            disabled={navigation.state === "submitting"}
          >
            Save notification settings
          </button>
        </div>
      </Form>
    </section>
  );
}
