import { json } from "@remix-run/cloudflare";
import { HttpError, type FieldErrors } from "./errors.server";

export interface ActionErrors {
  message: string;
  errors: FieldErrors;
}

/**
 * Runs a page action; a domain error (422 validation, 429 rate limit, …) comes back to the form as
 * `{message, errors}` with its status, so the page shows it beside the fields.
 */
export async function formAction(run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof HttpError) {
      return json<ActionErrors>(
        { message: error.message, errors: error.errors ?? {} },
        { status: error.status, headers: error.headers },
      );
    }
    throw error;
  }
}
