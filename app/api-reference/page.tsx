import type { Metadata } from "next";
import { ApiReference } from "@/components/api-reference/api-reference";
import { requireUser } from "@/lib/auth/session";

export const metadata: Metadata = { title: "API reference · Review Console" };

/** The HTTP API as /api/openapi.json describes it, rendered in the browser by Scalar. */
export default async function ApiReferencePage() {
  await requireUser(undefined, "/api-reference");
  return <ApiReference documentUrl="/api/openapi.json" />;
}
