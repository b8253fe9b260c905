import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { addResponseHeaders } from "../../worker/http";
import type { AppBindings } from "../../worker/types";

/**
 * Headers added after `next()` (security headers, the request id, queued cookies): in place on
 * a response the Worker made, on one copy of a response whose headers cannot change (a redirect
 * made by `Response.redirect`, a response fetched from a binding), keeping its status and body.
 */
function appReturning(make: () => Response) {
  const app = new Hono<AppBindings>();
  const seen: { before?: Response; after?: Response } = {};
  app.use(async (c, next) => {
    await next();
    seen.before = c.res;
    addResponseHeaders(c, (headers) => {
      headers.set("X-Added", "yes");
      headers.append("Set-Cookie", "a=1");
      headers.append("Set-Cookie", "b=2");
    });
    seen.after = c.res;
  });
  app.get("/", () => make());
  return { app, seen };
}

describe("addResponseHeaders", () => {
  it("adds to a response the Worker made in place, without copying it", async () => {
    const { app, seen } = appReturning(
      () => new Response("hello", { status: 201, headers: { "X-Own": "1" } }),
    );
    const res = await app.request("/");
    expect(seen.after).toBe(seen.before);
    expect(res.status).toBe(201);
    expect(await res.text()).toBe("hello");
    expect(res.headers.get("X-Own")).toBe("1");
    expect(res.headers.get("X-Added")).toBe("yes");
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
  });

  it("copies a response with immutable headers once and adds to the copy", async () => {
    const { app, seen } = appReturning(() => Response.redirect("https://example.com/next", 302));
    const res = await app.request("/");
    expect(seen.after).not.toBe(seen.before);
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("https://example.com/next");
    expect(res.headers.get("X-Added")).toBe("yes");
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
  });
});
