import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { CsrfInput, FormAlert } from "~/components/form";
import { PushSettings } from "~/components/push-controls";
import { titleMeta } from "~/lib/title";
import {
  NOTIFICATION_CHANNEL_LABELS,
  NOTIFICATION_CHANNELS,
  notificationFormSchema,
  NOTIFICATION_TYPE_LABELS,
  NOTIFICATION_TYPES,
  switchName,
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

/** Every time zone the runtime knows, for the quiet hours' list. */
function timeZones(): string[] {
  const known =
    typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return known.includes("UTC") ? known : ["UTC", ...known];
}

export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireUser(context, request);
  return json({
    ...(await getNotificationPreferences(context.env, user.id)),
    timeZones: timeZones(),
  });
}

/** Every switch is in the form, on or off (see the schema's `checkbox`). */
export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const { user } = requireUser(context, request);
    const change = parseInput(notificationFormSchema, await readBody(request));
    const settings = await setNotificationPreferences(context.env, user.id, change);
    return json({ ...settings, status: "Notification settings saved." });
  });
}

/** A hidden "off" then the checkbox "on", under one name: the last value sent is the state. */
function Switch({ name, label, checked }: { name: string; label: string; checked: boolean }) {
  return (
    <label className="channel-switch">
      <input type="hidden" name={name} value="off" />
      <input type="checkbox" name={name} defaultChecked={checked} />
      <span>{label}</span>
    </label>
  );
}

export default function NotificationSettingsPage() {
  const { preferences, quiet_hours, preview, timeZones } = useLoaderData<typeof loader>();
  const data = useActionData<ActionErrors | { status: string }>();
  const navigation = useNavigation();
  const [quiet, setQuiet] = useState(quiet_hours !== null);
  const zone = useRef<HTMLSelectElement>(null);

  // No quiet hours yet: offer them in this device's own time zone.
  useEffect(() => {
    const here = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!quiet_hours && zone.current && timeZones.includes(here)) zone.current.value = here;
  }, [quiet_hours, timeZones]);

  return (
    <section className="card">
      <h2>Notifications</h2>
      <p className="muted">
        Choose what Heartline tells you about, and where: in the app, as a push notification on this
        device when you are away, or in an email when something waits for you.
      </p>
      <Form method="post" className="form">
        <CsrfInput />
        <FormAlert message={data && "status" in data ? data.status : null} tone="success" />
        <FormAlert message={data && "errors" in data ? data.message : null} />
        <div className="switch-list">
          {NOTIFICATION_TYPES.map((type) => (
            <fieldset key={type} className="switch-row channel-row">
              <legend className="sr-only">{NOTIFICATION_TYPE_LABELS[type]}</legend>
              <span aria-hidden="true">
                <strong>{NOTIFICATION_TYPE_LABELS[type]}</strong>
                <span className="muted small">{HINTS[type]}</span>
              </span>
              <span className="channel-switches">
                {NOTIFICATION_CHANNELS.map((channel) => (
                  <Switch
                    key={channel}
                    name={switchName(type, channel)}
                    label={NOTIFICATION_CHANNEL_LABELS[channel]}
                    checked={preferences[type][channel]}
                  />
                ))}
              </span>
            </fieldset>
          ))}
        </div>

        <fieldset className="switch-list">
          <legend>
            <strong>While you are away</strong>
          </legend>
          <label className="switch-row">
            <input type="hidden" name="preview" value="off" />
            <input type="checkbox" name="preview" defaultChecked={preview} />
            <span>
              <strong>Show message text in push notifications</strong>
              <span className="muted small">
                Off: a push names who wrote, never what they wrote, so nothing private shows on a
                locked screen.
              </span>
            </span>
          </label>
          <label className="switch-row">
            <input type="hidden" name="quiet" value="off" />
            <input
              type="checkbox"
              name="quiet"
              checked={quiet}
              onChange={(event) => setQuiet(event.currentTarget.checked)}
            />
            <span>
              <strong>Quiet hours</strong>
              <span className="muted small">
                No push notifications between these times; what arrives waits in the app.
              </span>
            </span>
          </label>
          <div className="quiet-hours" hidden={!quiet}>
            <label>
              From
              <input type="time" name="quiet_start" defaultValue={quiet_hours?.start ?? "22:00"} />
            </label>
            <label>
              To
              <input type="time" name="quiet_end" defaultValue={quiet_hours?.end ?? "08:00"} />
            </label>
            <label>
              Time zone
              <select ref={zone} name="time_zone" defaultValue={quiet_hours?.time_zone ?? "UTC"}>
                {timeZones.map((name) => (
                  <option key={name} value={name}>
                    {name.replaceAll("_", " ")}
                  </option>
                ))}
              </select>
            </label>
          </div>
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
      <PushSettings />
    </section>
  );
}
