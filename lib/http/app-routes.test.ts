import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APP_ROUTES, matchRoute, undecodablePath } from "./app-routes";

const appDir = path.resolve(import.meta.dirname, "../../app");

/** Every page and route handler of app/, as `/a/[b]/c`. */
function routesOnDisk(): string[] {
  const found: string[] = [];
  const walk = (dir: string, route: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      // A route group, `(queue)`, organises files without adding a segment to the path.
      if (entry.isDirectory())
        walk(path.join(dir, entry.name), /^\(.*\)$/.test(entry.name) ? route : `${route}/${entry.name}`);
      else if (/^(route|page)\.tsx?$/.test(entry.name)) found.push(route || "/");
    }
  };
  walk(appDir, "");
  return found.sort();
}

describe("APP_ROUTES", () => {
  it("lists every page and route handler of app/", () => {
    // A new page or route handler: add it to APP_ROUTES in lib/http/app-routes.ts.
    expect([...APP_ROUTES].sort(), "APP_ROUTES against the files of app/").toEqual(routesOnDisk());
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
