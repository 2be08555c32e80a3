import * as responses from "@/lib/openapi/responses";
import { ok, error } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { notFound } from "@/lib/domain/refusal";
import { createDomain, getDomainView, listDomains, createDomainSchema } from "@/lib/domains";
import { apiRoute, parseJsonBody } from "@/lib/http/route";

/** GET /api/v1/domains (admin): every domain with its kinds, grants and working tokens. */
export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/domains",
    operationId: "listDomains",
    summary: "Every domain",
    description: "Its kinds, who holds a role in it, and the working tokens scoped to it.",
    tag: "Domains",
    access: { kind: "permission", permission: "users.manage" },
    answers: ok("Domains by name.", responses.domainListSchema),
  },
  async () => Response.json({ domains: await listDomains() }),
);

/** POST /api/v1/domains {name, kinds, description?, reason} (admin): a new domain owning the kinds. */
export const POST = apiRoute(
  {
    method: "POST",
    route: "/api/v1/domains",
    operationId: "createDomain",
    summary: "Add a domain",
    description: "A pattern is a kind (`card.charge`) or a prefix (`invoice.*`); the most specific pattern decides.",
    tag: "Domains",
    access: { kind: "permission", permission: "users.manage" },
    body: createDomainSchema,
    answers: {
      ...ok("The domain.", responses.domainCreatedSchema, 201),
      409: error("The name is taken (`domain-exists`), or another domain owns a pattern (`pattern-taken`)."),
    },
  },
  async ({ request, actor }) => {
    const { data } = await parseJsonBody(request, createDomainSchema);
    await createDomain(
      { name: data.name, kinds: data.kinds, description: data.description ?? null },
      data.reason,
      changeActorOf(actor),
    );
    const domain = await getDomainView(data.name);
    if (!domain) throw notFound(`no domain ${data.name}`);
    return Response.json({ domain }, { status: 201 });
  },
);
