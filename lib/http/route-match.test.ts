import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OUTPUTS, routesOnDisk } from "../../scripts/generate-routes";
import { APP_ROUTES, matchRoute, undecodablePath } from "./route-match";

const root = path.resolve(import.meta.dirname, "../..");

describe("the generated route lists", () => {
  it.each(Object.entries(OUTPUTS))("%s is what scripts/generate-routes.ts writes from app/ now", (file, render) => {
    // A new page or route handler: run `npm run generate`.
    expect(readFileSync(path.join(root, file), "utf8"), `${file}: run npm run generate`).toBe(render(routesOnDisk()));
  });

  it("lists every page and route handler of app/", () => {
    expect(APP_ROUTES).toContain("/reviews/[id]");
    expect(APP_ROUTES).toContain("/api/v1/reviews/[id]/actions");
    expect(APP_ROUTES.length).toBeGreaterThan(60);
  });
});

describe("matchRoute", () => {
  it.each([
    ["/", "/"],
    ["/api/v1/reviews", "/api/v1/reviews"],
    ["/api/v1/reviews/stats", "/api/v1/reviews/stats"],
    ["/api/v1/reviews/0b6f3c1e-0000-4000-8000-000000000000", "/api/v1/reviews/[id]"],
    ["/api/v1/reviews/anything%20at%20all/actions", "/api/v1/reviews/[id]/actions"],
    ["/api/v1/operations/auto-replay", "/api/v1/operations/auto-replay"],
    ["/api/v1/operations/auto-replay/invoice.reminder", "/api/v1/operations/auto-replay/[kind]"],
    ["/api/v1/operations/auto-replay/pause", "/api/v1/operations/auto-replay/[kind]"],
    ["/api/v1/operations/x/pause", "/api/v1/operations/[operationId]/pause"],
    ["/api/auth/sign-in/email", "/api/auth/[...all]"],
    ["/operations/new", "/operations/new"],
    ["/operations/abc", "/operations/[id]"],
  ])("%s is %s", (pathname, route) => {
    expect(matchRoute(pathname)).toBe(route);
  });

  it("is null for a path no route takes", () => {
    for (const pathname of ["/nope", "/api/v1/reviews/a/b/c", "/api/auth", "/reviews/a/b"]) {
      expect(matchRoute(pathname), pathname).toBeNull();
    }
  });
});

describe("undecodablePath", () => {
  it("names the parameter whose segment does not decode", () => {
    expect(undecodablePath("/api/v1/operations/auto-replay/%ED%A0%80")).toEqual({
      field: "kind",
      segment: "%ED%A0%80",
    });
    expect(undecodablePath("/api/v1/operations/%E0%A4%A/pause")?.field).toBe("operationId");
    expect(undecodablePath("/api/v1/operations/%FF")?.field).toBe("operationId");
    expect(undecodablePath("/api/v1/reviews/%FF/actions")?.field).toBe("id");
    expect(undecodablePath("/api/v1/replays/%C0%AF/outcome")?.field).toBe("replayId");
    expect(undecodablePath("/api/auth/sign-in/%ED%A0%80")?.field).toBe("all");
    expect(undecodablePath("/reviews/%ED%BF%BF")?.field).toBe("id");
  });

  it("says `path` for a segment that is no parameter, and null for paths that decode", () => {
    expect(undecodablePath("/api/v1/%ED%A0%80/reviews")).toEqual({ field: "path", segment: "%ED%A0%80" });
    expect(undecodablePath("/%")?.field).toBe("path");
    expect(undecodablePath("/api/v1/reviews/%FF/a/b")?.field).toBe("path");
    for (const ok of ["/", "/reviews", "/api/v1/operations/auto-replay/%F0%9F%98%80", "/a%20b/%2F"]) {
      expect(undecodablePath(ok), ok).toBeNull();
    }
  });
});
