import { describe, expect, it } from "vitest";
import { TestClient } from "../helpers/client";

describe("smoke", () => {
  it("renders the welcome page with its title and a CSRF meta tag", async () => {
    const client = new TestClient();
    const res = await client.fetch("/", { headers: { Accept: "text/html" } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("<title>Welcome - Heartline</title>");
    expect(html).toMatch(/<meta name="csrf-token" content="[^"]+"/);
  });
});
