import { afterEach, describe, expect, it, vi } from "vitest";
import { TestClient } from "../helpers/client";

/**
 * Issue 12, finding 10: a 404 or 405 is the visitor's mistake, not the server's. It is logged as a
 * warning that says which method and path, never at error level as "[object Object]".
 */
afterEach(() => vi.restoreAllMocks());

function logged(spy: { mock: { calls: unknown[][] } }) {
  return spy.mock.calls.map((args) => args.map(String).join(" "));
}

describe("logging thrown 4xx responses", () => {
  it("a 405 from a page without an action is a warning with method and path", async () => {
    const error = vi.spyOn(console, "error");
    const warn = vi.spyOn(console, "warn");
    const client = new TestClient();
    const res = await client.form("/account-deleted", { x: "1" });
    expect(res.status).toBe(405);
    await res.body?.cancel();
    expect(logged(error).join("\n")).not.toContain("[object Object]");
    expect(logged(error).filter((l) => l.includes("/account-deleted"))).toEqual([]);
    const line = logged(warn).find((l) => l.includes("/account-deleted"));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({
      level: "warn",
      status: 405,
      method: "POST",
      path: "/account-deleted",
    });
  });

  it("a page that does not exist logs nothing at error level", async () => {
    const error = vi.spyOn(console, "error");
    const res = await new TestClient().fetch("/no/such/page", { headers: { Accept: "text/html" } });
    expect(res.status).toBe(404);
    await res.body?.cancel();
    expect(logged(error).join("\n")).not.toContain("[object Object]");
    expect(logged(error).filter((l) => l.includes("/no/such/page"))).toEqual([]);
  });
});
