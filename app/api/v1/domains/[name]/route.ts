import { changeActorOf } from "@/lib/access";
import { notFound } from "@/lib/domain/refusal";
import { getDomainView, removeDomain, updateDomain, removeDomainSchema, updateDomainSchema } from "@/lib/domains";
import { apiRoute, parseJsonBody } from "@/lib/http/route";

/** PUT /api/v1/domains/{name} {kinds?, description?, reason} (admin): replaces its kinds and/or description. */
export const PUT = apiRoute<{ name: string }>("users.manage", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, updateDomainSchema);
  const changed = await updateDomain(
    params.name,
    { kinds: data.kinds, description: data.description },
    data.reason,
    changeActorOf(actor),
  );
  const domain = await getDomainView(params.name);
  if (!domain) throw notFound(`no domain ${params.name}`);
  return Response.json({ domain, kindsBefore: changed.from });
});

/** DELETE /api/v1/domains/{name} {reason} (admin): refused (409) while people or working tokens hold it. */
export const DELETE = apiRoute<{ name: string }>("users.manage", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, removeDomainSchema);
  const removed = await removeDomain(params.name, data.reason, changeActorOf(actor));
  return Response.json({ removed: params.name, kinds: removed.kinds });
});
