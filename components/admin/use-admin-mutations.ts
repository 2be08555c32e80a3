"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiDelete, apiPost, apiPut } from "@/lib/client/api";
import { adminKeys, operationKeys } from "@/lib/client/query-keys";
import type { TokenView } from "@/lib/tokens";
import type { PersonView } from "@/lib/users";

/** A one-time link to set a password, as the API answers it. */
export interface LinkAnswer {
  url: string;
  expiresAt: string;
}

export interface PersonAnswer {
  person: PersonView;
  link?: LinkAnswer;
  sessionsEnded?: number;
  paused?: { operations: string[]; kinds: string[] };
}

export type PersonChange =
  | { kind: "invite"; email: string; role: string; reason: string }
  | { kind: "disable" | "enable" | "password-link"; userId: string; reason: string }
  | { kind: "role"; userId: string; role: string; reason: string };

function personRequest(change: PersonChange): Promise<PersonAnswer> {
  if (change.kind === "invite") {
    const { email, role, reason } = change;
    return apiPost<PersonAnswer>("/api/v1/people", { email, role, reason });
  }
  const { kind, userId, ...body } = change;
  return apiPost<PersonAnswer>(`/api/v1/people/${encodeURIComponent(userId)}/${kind}`, body);
}

/** Any change to a person; the list is read again after it, and so are operations (some may have paused). */
export function usePersonChange() {
  const queryClient = useQueryClient();
  return useMutation<PersonAnswer, Error, PersonChange>({
    mutationFn: personRequest,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: operationKeys.all });
      return queryClient.invalidateQueries({ queryKey: adminKeys.people() });
    },
  });
}

export interface IssuedToken {
  secret: string;
  token: TokenView;
}

export function useIssueToken() {
  const queryClient = useQueryClient();
  return useMutation<
    IssuedToken,
    Error,
    { name: string; role: string; expiresInDays: number | null; domain: string | null; reason: string }
  >({
    mutationFn: (body) => apiPost<IssuedToken>("/api/v1/tokens", body),
    onSettled: () => queryClient.invalidateQueries({ queryKey: adminKeys.tokens() }),
  });
}

export function useRevokeToken() {
  const queryClient = useQueryClient();
  return useMutation<{ token: TokenView }, Error, { id: string; reason: string }>({
    mutationFn: ({ id, reason }) => apiPost(`/api/v1/tokens/${encodeURIComponent(id)}/revoke`, { reason }),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: operationKeys.all });
      return queryClient.invalidateQueries({ queryKey: adminKeys.tokens() });
    },
  });
}

export type GrantChange = {
  kind: "grant" | "revoke";
  userId: string;
  role: string;
  domain: string | null;
  reason: string;
};

/** Adds or removes one grant; people and domains (which list who holds them) are read again. */
export function useGrantChange() {
  const queryClient = useQueryClient();
  return useMutation<PersonAnswer, Error, GrantChange>({
    mutationFn: ({ kind, userId, ...body }) => {
      const path = `/api/v1/people/${encodeURIComponent(userId)}/grants`;
      return kind === "grant" ? apiPost<PersonAnswer>(path, body) : apiDelete<PersonAnswer>(path, body);
    },
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: operationKeys.all });
      void queryClient.invalidateQueries({ queryKey: adminKeys.domains() });
      return queryClient.invalidateQueries({ queryKey: adminKeys.people() });
    },
  });
}

export type DomainChange =
  | { kind: "create"; name: string; kinds: string[]; description: string | null; reason: string }
  | { kind: "update"; name: string; kinds: string[]; description: string | null; reason: string }
  | { kind: "remove"; name: string; reason: string };

export function useDomainChange() {
  const queryClient = useQueryClient();
  return useMutation<unknown, Error, DomainChange>({
    mutationFn: (change) => {
      if (change.kind === "create") {
        const { name, kinds, description, reason } = change;
        return apiPost("/api/v1/domains", { name, kinds, description, reason });
      }
      const path = `/api/v1/domains/${encodeURIComponent(change.name)}`;
      if (change.kind === "remove") return apiDelete(path, { reason: change.reason });
      return apiPut(path, { kinds: change.kinds, description: change.description, reason: change.reason });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: adminKeys.domains() }),
  });
}
