import Link from "next/link";
import { Fragment, type ReactNode } from "react";
import { ApprovalsBadge } from "@/components/approvals/approvals-badge";
import { ViewerRoleProvider } from "@/components/operations/viewer-role";
import { SignOutButton } from "@/components/sign-out-button";
import { TimeZoneChoice } from "@/components/time-zone-choice";
import { TimeZoneProvider } from "@/components/ui/time-zone";
import { SavedViewsNav } from "@/components/views/saved-views-nav";
import { UTC } from "@/lib/time-zone";
import { buttonClassName } from "@/components/ui/button";
import { type Role, type Grant, holdsPermission } from "@/lib/access/client";
import { grantsLabel } from "@/lib/domains";

export type ShellSection = "overview" | "reviews" | "operations" | "audit" | "admin" | "api-reference" | "approvals";

/** Who is signed in, as the shell shows it (a subset of the session's user). */
export interface ShellUser {
  /** The person's id: their saved views are read with it (absent: no views in the navigation). */
  id?: string;
  email: string;
  role: Role;
  /** What they may do where (ADR 0029, 0030): shown after the headline role when any is scoped; without, the role counts everywhere. */
  grants?: readonly Grant[];
  /** The zone they read and type times in (ADR 0043); absent: UTC. */
  timeZone?: string;
}

const NAV: {
  section: ShellSection;
  href: string;
  label: string;
  /** The permission the section needs; none: every signed-in person. */
  permission?: "reviews.read" | "operations.read" | "audit.read" | "users.manage";
}[] = [
  { section: "overview", href: "/overview", label: "Overview", permission: "reviews.read" },
  { section: "reviews", href: "/reviews", label: "Queue", permission: "reviews.read" },
  { section: "operations", href: "/operations", label: "Operations", permission: "operations.read" },
  { section: "audit", href: "/audit", label: "Decision log", permission: "audit.read" },
  { section: "admin", href: "/admin", label: "Admin", permission: "users.manage" },
  { section: "api-reference", href: "/api-reference", label: "API" },
];

/**
 * The frame of every signed-in page: a skip link, the header (product, the sections this role
 * may use, who is signed in, sign out) and the `<main>` landmark the skip link jumps to.
 * Pass `user={null}` for a loading frame (the header keeps its size).
 */
export function AppShell({
  user,
  current,
  children,
}: {
  user: ShellUser | null;
  current?: ShellSection;
  children: ReactNode;
}) {
  const links = user
    ? NAV.filter((item) => !item.permission || holdsPermission(user.grants ?? user.role, item.permission))
    : [];
  return (
    <TimeZoneProvider zone={user?.timeZone ?? UTC}>
      <a className="rc-skip-link" href="#main">
        Skip to content
      </a>
      <header className="rc-shell-header">
        <Link className="rc-shell-brand" href="/">
          Review Console
        </Link>
        <nav className="rc-shell-nav" aria-label="Main">
          <ul>
            {links.map((item) => (
              <Fragment key={item.section}>
                <li>
                  <Link href={item.href} aria-current={item.section === current ? "page" : undefined}>
                    {item.label}
                  </Link>
                </li>
                {/* The person's saved views of the queue and the team's (ADR 0047), under the Queue entry. */}
                {item.section === "reviews" && user?.id && holdsPermission(user.grants ?? user.role, "views.own") ? (
                  <li>
                    <SavedViewsNav personId={user.id} />
                  </li>
                ) : null}
              </Fragment>
            ))}
          </ul>
        </nav>
        <div className="rc-shell-user">
          {user ? (
            <>
              {/* Four eyes: what waits for this person's approval (ADR 0031). */}
              {holdsPermission(user.grants ?? user.role, "reviews.read") ? (
                <ApprovalsBadge current={current === "approvals"} />
              ) : null}
              <span className="rc-visually-hidden">Signed in as</span>
              <span className="rc-shell-email" title={user.email}>
                {user.email}
              </span>
              {user.grants?.some((g) => g.domain !== null) ? (
                <span className="rc-shell-role" title="Your roles, by domain">
                  {grantsLabel(user.grants)}
                </span>
              ) : (
                <span className="rc-shell-role" title="Your role">
                  {user.role}
                </span>
              )}
              <TimeZoneChoice />
              <SignOutButton className={buttonClassName("default", "sm")} />
            </>
          ) : (
            <span className="rc-shell-placeholder" aria-hidden="true" />
          )}
        </div>
      </header>
      <main id="main" className="rc-shell-main" tabIndex={-1}>
        <ViewerRoleProvider role={user?.role ?? null} grants={user?.grants ?? null}>
          {children}
        </ViewerRoleProvider>
      </main>
    </TimeZoneProvider>
  );
}
