import { describe, expect, it } from "vitest";
import { formatInstant, isTimeZone, wallClockOf, wallClockToIso, zoneLabel } from "./time-zone";

const LA = "America/Los_Angeles";

describe("one time-zone rule", () => {
  it("formats an instant in the chosen zone and names the zone", () => {
    expect(formatInstant("2026-11-30T03:54:12.345Z")).toBe("2026-11-30 03:54:12 UTC");
    expect(formatInstant("2026-11-30T03:54:12Z", LA)).toBe("2026-11-29 19:54:12 America/Los_Angeles");
    expect(formatInstant("2026-07-01T17:00:00Z", LA, { seconds: false })).toBe("2026-07-01 10:00 America/Los_Angeles");
    expect(formatInstant("2026-11-30T03:54:12Z", "Asia/Kolkata", { withZone: false })).toBe("2026-11-30 09:24:12");
    expect(formatInstant("not a time", LA)).toBe("not a time");
  });

  it("reads what a person types in their zone: 09:00 in Los Angeles is 17:00Z in winter, 16:00Z in summer", () => {
    expect(wallClockToIso("2026-12-07T09:00", LA)).toBe("2026-12-07T17:00:00.000Z");
    expect(wallClockToIso("2026-07-07T09:00", LA)).toBe("2026-07-07T16:00:00.000Z");
    expect(wallClockToIso("2026-12-07T09:00", "UTC")).toBe("2026-12-07T09:00:00.000Z");
    expect(wallClockToIso("2026-12-07T09:00:30", "Asia/Kolkata")).toBe("2026-12-07T03:30:30.000Z");
  });

  it("round-trips: the control shows an instant as the wall clock that reads back to it", () => {
    for (const iso of ["2026-12-07T17:00:00.000Z", "2026-03-08T10:30:00.000Z", "2026-11-01T08:30:00.000Z"]) {
      expect(wallClockToIso(wallClockOf(iso, LA), LA)).toBe(iso);
    }
    expect(wallClockOf("2026-12-07T17:00:30Z", LA, { seconds: true })).toBe("2026-12-07T09:00:30");
    expect(wallClockOf("2026-12-07T17:00:00Z", LA, { seconds: true })).toBe("2026-12-07T09:00");
  });

  it("reads a time a daylight-saving change skips with the offset before it, and a repeated one as its first", () => {
    // 2026-03-08 02:00 PST jumps to 03:00 PDT: 02:30 does not exist; it is read as 03:30 PDT.
    expect(wallClockToIso("2026-03-08T02:30", LA)).toBe("2026-03-08T10:30:00.000Z");
    // 2026-11-01 02:00 PDT falls back to 01:00 PST: 01:30 happens twice; the first is PDT.
    expect(wallClockToIso("2026-11-01T01:30", LA)).toBe("2026-11-01T08:30:00.000Z");
  });

  it("refuses what is not a date, a time or a zone", () => {
    expect(wallClockToIso("2026-02-30T09:00", LA)).toBeNull();
    expect(wallClockToIso("2026-12-07 09:00", LA)).toBeNull();
    expect(wallClockToIso("2026-12-07T24:00", LA)).toBeNull();
    expect(wallClockToIso("", LA)).toBeNull();
    expect(isTimeZone(LA)).toBe(true);
    expect(isTimeZone("UTC")).toBe(true);
    expect(isTimeZone("Mars/Olympus_Mons")).toBe(false);
    expect(isTimeZone("")).toBe(false);
    expect(zoneLabel("Etc/UTC")).toBe("UTC");
  });
});
