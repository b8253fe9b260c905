import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { signOut } from "~/server/web-auth.server";

export async function action({ context }: ActionFunctionArgs) {
  await signOut(context);
  return redirect("/login");
}

export function loader() {
  return redirect("/");
}
