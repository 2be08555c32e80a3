"use client";

import { createContext, type ReactNode, useContext } from "react";
import type { Role } from "@/lib/auth/roles";

// The signed-in person's role for client components deep in a page (the queue's bulk entry
// points), provided once by the app shell. Only decides what is offered: the API checks again.

const ViewerRoleContext = createContext<Role | null>(null);

export function ViewerRoleProvider({ role, children }: { role: Role | null; children: ReactNode }) {
  return <ViewerRoleContext.Provider value={role}>{children}</ViewerRoleContext.Provider>;
}

/** The role of the person signed in, or null in a loading frame. */
export function useViewerRole(): Role | null {
  return useContext(ViewerRoleContext);
}
