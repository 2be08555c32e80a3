import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { OperationView } from "@/components/operations/operation-view";
import { requireUser } from "@/lib/auth";
import { operationKeys } from "@/lib/client/query-keys";
import { getOperation } from "@/lib/operations";
import { isUuid } from "@/lib/domain/ids";

export const metadata: Metadata = { title: "Operation · Review Console" };

/**
 * One bulk operation. It is read here, as GET /api/v1/operations/{id} answers it for this role,
 * and handed to the browser's cache, which keeps it live while it runs.
 */
export default async function OperationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await requireUser("operations.read", `/operations/${encodeURIComponent(id)}`);
  const operation = isUuid(id) ? await getOperation(id, user.grants) : null;
  if (!operation) notFound();

  const queryClient = new QueryClient();
  queryClient.setQueryData(operationKeys.detail(id), operation);
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <OperationView id={id} role={user.role} grants={user.grants} />
    </HydrationBoundary>
  );
}
