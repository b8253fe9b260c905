import { describe, expect, it } from "vitest";
import { ageOn, isRealDate, MINIMUM_AGE } from "~/lib/age";

const on = (iso: string) => new Date(`${iso}T12:00:00Z`);

describe("ageOn", () => {
  it("counts whole years, turning one older on the birthday itself", () => {
    expect(ageOn("2000-06-15", on("2018-06-14"))).toBe(17);
    expect(ageOn("2000-06-15", on("2018-06-15"))).toBe(18);
    expect(ageOn("2000-06-15", on("2018-06-16"))).toBe(18);
    expect(ageOn("2000-06-15", on("2018-05-31"))).toBe(17);
    expect(ageOn("2000-06-15", on("2018-07-01"))).toBe(18);
  });

  it("works across the turn of the year", () => {
    expect(ageOn("2000-12-31", on("2018-12-30"))).toBe(17);
    expect(ageOn("2000-12-31", on("2018-12-31"))).toBe(18);
    expect(ageOn("2000-01-01", on("2017-12-31"))).toBe(17);
    expect(ageOn("2000-01-01", on("2018-01-01"))).toBe(18);
  });

  it("counts a 29 February birthday from 1 March in other years", () => {
    expect(ageOn("2000-02-29", on("2018-02-28"))).toBe(17);
    expect(ageOn("2000-02-29", on("2018-03-01"))).toBe(18);
    expect(ageOn("2000-02-29", on("2020-02-29"))).toBe(20);
  });

  it("uses the UTC calendar day", () => {
    // 23:30 on the 14th in UTC is already the 15th east of Greenwich, but not yet the birthday.
    expect(ageOn("2000-06-15", new Date("2018-06-14T23:30:00Z"))).toBe(17);
    expect(ageOn("2000-06-15", new Date("2018-06-15T00:00:00Z"))).toBe(18);
  });

  it("is 18, the minimum age", () => {
    expect(MINIMUM_AGE).toBe(18);
  });
});

describe("isRealDate", () => {
  it("accepts real YYYY-MM-DD days", () => {
    for (const v of ["2000-01-01", "2000-02-29", "1999-12-31", "2024-02-29"]) {
      expect(isRealDate(v), v).toBe(true);
    }
  });

  it("refuses impossible days and other formats", () => {
    for (const v of [
      "2001-02-29",
      "2000-02-30",
      "2000-13-01",
      "2000-00-10",
      "2000-04-31",
      "2000-1-1",
      "01/02/2000",
      "2000-01-01T00:00:00Z",
      " 2000-01-01",
      "",
    ]) {
      expect(isRealDate(v), v).toBe(false);
    }
  });
});
