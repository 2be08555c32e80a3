import { changeActorOf } from "@/lib/access";
import { notFound } from "@/lib/domain/refusal";
import { createDomain, getDomainView, listDomains, createDomainSchema } from "@/lib/domains";
import { apiRoute, parseJsonBody } from "@/lib/http/route";

/** GET /api/v1/domains (admin): every domain with its kinds, grants and working tokens. */
export const GET = apiRoute("users.manage", async () => Response.json({ domains: await listDomains() }));

/** POST /api/v1/domains {name, kinds, description?, reason} (admin): a new domain owning the kinds. */
export const POST = apiRoute("users.manage", async ({ request, actor }) => {
  const { data } = await parseJsonBody(request, createDomainSchema);
  await createDomain(
    { name: data.name, kinds: data.kinds, description: data.description ?? null },
    data.reason,
    changeActorOf(actor),
  );
  const domain = await getDomainView(data.name);
  if (!domain) throw notFound(`no domain ${data.name}`);
  return Response.json({ domain }, { status: 201 });
});
