import { dehydrate, HydrationBoundary, noop, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import styles from "@/components/admin/admin.module.css";
import { PeopleSection } from "@/components/admin/people-section";
import { DomainsSection } from "@/components/admin/domains-section";
import { domainsOptions, peopleOptions, tokensOptions } from "@/components/admin/queries";
import { TokensSection } from "@/components/admin/tokens-section";
import { requireUser } from "@/lib/auth";
import { listDomains } from "@/lib/domains";
import { listTokens } from "@/lib/tokens";
import { listUsers } from "@/lib/users";

export const metadata: Metadata = { title: "Administration · Review Console" };

/**
 * People and API tokens (docs/decisions/0011-people-and-tokens.md), read here so the first paint
 * has rows. Admins manage who gets in; they still may not act on records.
 */
export default async function AdminPage() {
  const user = await requireUser("users.manage", "/admin");
  const queryClient = new QueryClient();
  await Promise.all([
    queryClient.prefetchQuery({ ...peopleOptions(), queryFn: async () => ({ people: await listUsers() }) }).catch(noop),
    queryClient
      .prefetchQuery({ ...tokensOptions(), queryFn: async () => ({ tokens: await listTokens() }) })
      .catch(noop),
    queryClient
      .prefetchQuery({ ...domainsOptions(), queryFn: async () => ({ domains: await listDomains() }) })
      .catch(noop),
  ]);
  return (
    <div className={styles.page}>
      <h1 className={styles.title}>Administration</h1>
      <p className={styles.lead}>
        Who signs in and what they hold in which domain, and which programs hold tokens. Every change here goes to the
        decision log with the reason you give.
      </p>
      <HydrationBoundary state={dehydrate(queryClient)}>
        <PeopleSection viewerId={user.id} />
        <TokensSection />
        <DomainsSection />
      </HydrationBoundary>
    </div>
  );
}
