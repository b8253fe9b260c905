/**
 * The browser's one way to call the JSON API: JSON in and out, the page's CSRF token, the build
 * version (so a page from an older deploy is reloaded instead of breaking), and the error
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
  // docs/domain.md "Pages, navigation and appearance": a 409 with a location header causes a
  // full-page load of that location.
  const location = response.headers.get("Location");
  if (response.status === 409 && location) {
    window.location.assign(location);
    throw new ApiError(409, "The application was updated; reloading.");
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
