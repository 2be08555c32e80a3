import * as responses from "@/lib/openapi/responses";
import { recordIdParams, ok, error } from "@/lib/openapi/parts";
import { grantsOf, domainsWhere, mayRead } from "@/lib/access";
import { isUuid } from "@/lib/domain/ids";
import { notFound } from "@/lib/domain/refusal";
import { detailResponse } from "@/lib/http/review-responses";
import { apiRoute } from "@/lib/http/route";
import { archivedRecordRefusal } from "@/lib/retention";
import { getReview } from "@/lib/actions";

export const GET = apiRoute<{ id: string }>(
  {
    method: "GET",
    route: "/api/v1/reviews/[id]",
    operationId: "getReview",
    summary: "One record",
    description:
      "Its fields, its message exactly as received, revisions, history, replays, journal and sequence state.",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.read" },
    params: recordIdParams,
    answers: {
      ...ok("The record.", responses.reviewDetailSchema),
      404: error(
        "No record with this id. A finished record taken out by `review-console archive` answers code `review-archived`, its message naming the month and file, and `archived: {month, files, archivedAt}`.",
      ),
    },
  },
  async ({ params, actor }) => {
    const grants = grantsOf(actor);
    // Anything that is not a UUID cannot name a record: a 404, not a database type error.
    const record = isUuid(params.id) ? await getReview(params.id, grants) : null;
    // A record outside the caller's domains is answered exactly as an unknown id (ADR 0030).
    if (!record || !mayRead(grants, record.domain)) {
      // An archived record is gone from the live tables: the 404 names its archive file, to those
      // who see every domain (its kind's domain is no longer at hand to check).
      const archived =
        !record && isUuid(params.id) && domainsWhere(grants, "reviews.read") === "all"
          ? await archivedRecordRefusal(params.id)
          : null;
      throw archived || notFound(`no review record ${params.id}`);
    }
    return detailResponse(record);
  },
);
