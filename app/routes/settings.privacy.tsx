import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { CsrfInput, FormAlert } from "~/components/form";
import { titleMeta } from "~/lib/title";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { requireUser } from "~/server/guards.server";
import { getHideOnline, setHideOnline } from "~/server/presence.server";
import { privacyFormSchema } from "~/schemas/notifications";
import { parseInput, readBody } from "~/server/validation.server";

export const meta: MetaFunction = () => titleMeta("Privacy Settings");

export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireUser(context, request);
  return json({ hideOnline: await getHideOnline(context.env, user.id) });
}

export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const { user } = requireUser(context, request);
    const form = parseInput(privacyFormSchema, await readBody(request));
    const hideOnline = await setHideOnline(context.env, user.id, form.hide_online === "on");
    return json({
      hideOnline,
      status: hideOnline
        ? "Your online status is hidden."
        : "Members can now see when you are online.",
    });
  });
}

export default function PrivacySettingsPage() {
  const { hideOnline } = useLoaderData<typeof loader>();
  const data = useActionData<ActionErrors | { status: string }>();
  const navigation = useNavigation();
  return (
    <section className="card">
      <h2>Privacy</h2>
      <p className="muted">Decide what other members can see about you.</p>
      <Form method="post" className="form">
        <CsrfInput />
        <FormAlert message={data && "status" in data ? data.status : null} tone="success" />
        <FormAlert message={data && "errors" in data ? data.message : null} />
        <label className="switch-row">
          <input type="hidden" name="hide_online" value="off" />
          <input type="checkbox" name="hide_online" defaultChecked={hideOnline} />
          <span>
            <strong>Hide my online status</strong>
            <span className="muted small">
              Nobody sees when you are online or when you were last active. You still see others.
            </span>
          </span>
        </label>
        <div>
          <button
            type="submit"
            className="btn btn-primary"
            disabled={navigation.state === "submitting"}
          >
            Save privacy settings
          </button>
        </div>
      </Form>
    </section>
  );
}
