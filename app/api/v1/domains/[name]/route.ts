import * as responses from "@/lib/openapi/responses";
import { domainNameParams, ok, error } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { notFound } from "@/lib/domain/refusal";
import { getDomainView, removeDomain, updateDomain, removeDomainSchema, updateDomainSchema } from "@/lib/domains";
import { apiRoute, parseJsonBody } from "@/lib/http/route";

/** PUT /api/v1/domains/{name} {kinds?, description?, reason} (admin): replaces its kinds and/or description. */
export const PUT = apiRoute<{ name: string }>(
  {
    method: "PUT",
    route: "/api/v1/domains/[name]",
    operationId: "updateDomain",
    summary: "Change a domain's kinds or description",
    description: "Records move with their kinds at once: a record's domain is derived from its kind.",
    tag: "Domains",
    access: { kind: "permission", permission: "users.manage" },
    params: domainNameParams,
    body: updateDomainSchema,
    answers: {
      ...ok("The domain and its kinds before.", responses.domainUpdatedSchema),
      404: error("No such domain."),
      409: error("Another domain owns a pattern (`pattern-taken`), or nothing changes (`no-change`)."),
    },
  },
  async ({ request, actor, params }) => {
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
  },
);

/** DELETE /api/v1/domains/{name} {reason} (admin): refused (409) while people or working tokens hold it. */
export const DELETE = apiRoute<{ name: string }>(
  {
    method: "DELETE",
    route: "/api/v1/domains/[name]",
    operationId: "removeDomain",
    summary: "Remove a domain",
    description: "Its kinds are then in no domain (global roles only).",
    tag: "Domains",
    access: { kind: "permission", permission: "users.manage" },
    params: domainNameParams,
    body: removeDomainSchema,
    answers: {
      ...ok("What was removed.", responses.domainRemovedSchema),
      404: error("No such domain."),
      409: error("People or working tokens still hold a role in it (`domain-in-use`), named in the message."),
    },
  },
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, removeDomainSchema);
    const removed = await removeDomain(params.name, data.reason, changeActorOf(actor));
    return Response.json({ removed: params.name, kinds: removed.kinds });
  },
);
