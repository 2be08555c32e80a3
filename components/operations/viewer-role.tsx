"use client";

import { createContext, type ReactNode, useContext } from "react";
import { type Role, type Grant } from "@/lib/access/client";

// The signed-in person's role and grants (ADR 0030) for client components deep in a page (the
// queue's bulk entry points), provided once by the app shell. Only decides what is offered: the
// API checks again.

const ViewerRoleContext = createContext<Role | null>(null);
const ViewerGrantsContext = createContext<readonly Grant[] | null>(null);

export function ViewerRoleProvider({
  role,
  grants = null,
  children,
}: {
  role: Role | null;
  grants?: readonly Grant[] | null;
  children: ReactNode;
}) {
  return (
    <ViewerRoleContext.Provider value={role}>
      <ViewerGrantsContext.Provider value={grants}>{children}</ViewerGrantsContext.Provider>
    </ViewerRoleContext.Provider>
  );
}

/** The role of the person signed in, or null in a loading frame. */
export function useViewerRole(): Role | null {
  return useContext(ViewerRoleContext);
}

/** What the person signed in may do where: their grants, else their role everywhere; null while loading. */
export function useViewerAuthority(): Role | readonly Grant[] | null {
  const grants = useContext(ViewerGrantsContext);
  const role = useContext(ViewerRoleContext);
  return grants ?? role;
}
