import type { Metadata } from "next";
import { ApiReference } from "@/components/api-reference/reference";
import { requireUser } from "@/lib/auth";
import { servedReferenceModel } from "@/lib/openapi/served-reference";
import { ROUTE_MODULES } from "../api/route-modules.generated";

export const metadata: Metadata = { title: "API reference · Review Console" };

/** The HTTP API as /api/openapi.json describes it, rendered here on the server (no script, nothing from elsewhere). */
export default async function ApiReferencePage() {
  await requireUser(undefined, "/api-reference");
  return <ApiReference model={servedReferenceModel(ROUTE_MODULES)} documentUrl="/api/openapi.json" />;
}
