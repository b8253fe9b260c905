import type { z } from "zod";
import { fieldErrors } from "~/schemas/validation";
import { ValidationError } from "./errors.server";

/** Parses input with a shared schema; bad input becomes a 422 ValidationError, never a 500. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(fieldErrors(result.error));
  return result.data;
}

/** Reads a request body as an object, whether it is JSON or a form. */
export async function readBody(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get("Content-Type") ?? "";
  if (type.includes("application/json")) {
    try {
      const body: unknown = await request.json();
      return body && typeof body === "object" && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : {};
    } catch {
      throw new ValidationError({ _: ["The request body is not valid JSON."] });
    }
  }
  if (type.includes("form")) {
    const form = await request.formData();
    const out: Record<string, unknown> = {};
    for (const [k, v] of form.entries()) if (typeof v === "string") out[k] = v;
    return out;
  }
  return {};
}
