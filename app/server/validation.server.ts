import type { z } from "zod";
import { fieldErrors } from "~/schemas/validation";
import { HttpError, ValidationError } from "./errors.server";

/** Parses input with a shared schema; bad input becomes a 422 ValidationError, never a 500. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(fieldErrors(result.error));
  return result.data;
}

/**
 * Reads a request's whole body, or stops and returns null as soon as it passes `maxBytes` (so an
 * oversized body is never buffered).
 */
export async function readBytesCapped(
  request: Request,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer> | null> {
  const declared = request.headers.get("Content-Length");
  if (declared !== null && !(Number(declared) <= maxBytes)) return null;
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** Reads a request body as an object, whether it is JSON or a form. */
export async function readBody(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get("Content-Type") ?? "";
  if (type.includes("application/json")) {
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      throw new ValidationError({ _: ["The request body is not valid JSON."] });
    }
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      throw new ValidationError({ _: ["The request body must be a JSON object."] });
    }
    return body as Record<string, unknown>;
  }
  if (type.includes("form")) {
    let form: FormData;
    try {
      form = await request.formData();
    } catch {
      // A broken multipart body (found by tests/security/fuzz.test.ts) is the client's mistake.
      throw new ValidationError({ _: ["The request body is not a valid form."] });
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of form.entries()) if (typeof v === "string") out[k] = v;
    return out;
  }
  // No body is an empty one; a body of any other kind is not read as one.
  if (request.body && (await request.arrayBuffer()).byteLength > 0) {
    throw new HttpError(415, "The request body must be JSON or a form.");
  }
  return {};
}
