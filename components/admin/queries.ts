import { queryOptions } from "@tanstack/react-query";
import { apiGet } from "@/lib/client/api";
import { adminKeys } from "@/lib/client/query-keys";
import type { DomainView } from "@/lib/domains";
import type { TokenView } from "@/lib/tokens";
import type { PersonView } from "@/lib/users";

// Query definitions of the admin page (docs/api-additions.md, "People and tokens").

export function peopleOptions() {
  return queryOptions({
    queryKey: adminKeys.people(),
    queryFn: ({ signal }) => apiGet<{ people: PersonView[] }>("/api/v1/people", signal),
  });
}

export function tokensOptions() {
  return queryOptions({
    queryKey: adminKeys.tokens(),
    queryFn: ({ signal }) => apiGet<{ tokens: TokenView[] }>("/api/v1/tokens", signal),
  });
}

export function domainsOptions() {
  return queryOptions({
    queryKey: adminKeys.domains(),
    queryFn: ({ signal }) => apiGet<{ domains: DomainView[] }>("/api/v1/domains", signal),
  });
}
