/**
 * The browser's one way to call the JSON API: JSON in and out, the page's CSRF token, the build
 * version (an answer naming a newer one says a deploy happened: `APP_UPDATED`), and the error
 * shape of docs/api.md "Errors" turned into an ApiError.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: Record<string, string[]>,
  ) {
    super(message);
  }
}

export const VERSION_HEADER = "X-Heartline-Version";

/**
 * The window event that says a newer version of the app is deployed (its build version in
 * `detail`): app/components/app-update.tsx offers a refresh and takes it on the next navigation.
 */
export const APP_UPDATED = "heartline:app-updated";

function meta(name: string): string | null {
  if (typeof document === "undefined") return null;
  return document.querySelector(`meta[name="${name}"]`)?.getAttribute("content") || null;
}

/**
 * docs/domain.md "Error messages": a non-OK response without a server message gives 'HTTP error!
 * status: {code}'.
 */
export const httpErrorMessage = (status: number) => `HTTP error! status: ${status}`;

/**
 * docs/domain.md "Error messages": field errors joined with ', ' when the server gives no message
 * of its own.
 */
export function joinFieldErrors(errors: Record<string, string[]> | undefined, separator = ", ") {
  return Object.values(errors ?? {})
    .flat()
    .join(separator);
}

export interface ApiRequest {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  body?: unknown;
  signal?: AbortSignal;
}

export async function api<T>(path: string, { method = "GET", body, signal }: ApiRequest = {}) {
  const headers: Record<string, string> = {
    Accept: "application/json",
    "X-Requested-With": "XMLHttpRequest",
  };
  const version = meta("app-version");
  if (version) headers[VERSION_HEADER] = version;
  const token = meta("csrf-token");
  if (method !== "GET" && token) headers["X-CSRF-Token"] = token;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const response = await fetch(path, {
    method,
    headers,
    body: payload,
    signal,
    credentials: "same-origin",
  });
  // A deploy happened (docs/decisions/030): the answer is still this version's, and the page
  // moves to the new one at its next navigation, never by itself.
  const current = response.headers.get(VERSION_HEADER);
  if (version && current && current !== version) {
    window.dispatchEvent(new CustomEvent(APP_UPDATED, { detail: current }));
  }
  if (response.status === 204) return undefined as T;
  const data: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const shaped = (data ?? {}) as { message?: string; errors?: Record<string, string[]> };
    throw new ApiError(
      response.status,
      shaped.message ?? httpErrorMessage(response.status),
      shaped.errors,
    );
  }
  return data as T;
}
