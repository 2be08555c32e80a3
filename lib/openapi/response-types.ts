import type { z } from "zod";
import type { ApprovalView, PolicyView } from "@/lib/approvals";
import type { AuditEntry } from "@/lib/audit";
import type { KindAutoReplay, OperationItemView, OperationView } from "@/lib/operations";
import type { Overview } from "@/lib/overview";
import type { OutcomeResult } from "@/lib/replays";
import type { ReviewDetail } from "@/lib/actions";
import type { GroupEstimate, ReviewGroup, ReviewQueueItem, ReviewStats } from "@/lib/reviews";
import type { TokenView } from "@/lib/tokens";
import type { AssigneeOption, PersonView } from "@/lib/users";
import type * as body from "./responses";

// Compile-time only: every value of the TypeScript type the handlers answer with is one the
// documented schema (lib/openapi/responses.ts) accepts: a field typed differently, or one the
// schema requires and the type lacks, fails `tsc`. A field the schema does not name at all is
// caught by tests/integration/openapi.int.test.ts, which parses real answers.

type Accepts<Schema extends z.ZodType, T> = [T] extends [z.output<Schema>] ? true : false;
type Holds<T extends true> = T;

/** Database enums are typed `string` where the API documents their values. */
type WithCategory<T> = Omit<T, "category"> & { category: z.output<typeof body.reviewListItemSchema>["category"] };

export type ResponseTypesAgree = [
  Holds<Accepts<typeof body.reviewListItemSchema, WithCategory<ReviewQueueItem>>>,
  Holds<Accepts<typeof body.reviewStatsSchema, ReviewStats>>,
  Holds<
    Accepts<typeof body.reviewGroupsSchema, { groups: ReviewGroup[]; truncated: boolean; estimates: GroupEstimate[] }>
  >,
  Holds<Accepts<typeof body.reviewDetailSchema, WithCategory<ReviewDetail> & { message: unknown }>>,
  Holds<Accepts<typeof body.outcomeResultSchema, OutcomeResult>>,
  Holds<Accepts<typeof body.auditEntrySchema, AuditEntry>>,
  Holds<Accepts<typeof body.operationSchema, OperationView>>,
  Holds<Accepts<typeof body.operationItemsSchema, { items: OperationItemView[]; nextCursor: string | null }>>,
  Holds<Accepts<typeof body.kindAutoReplaySchema, KindAutoReplay>>,
  Holds<Accepts<typeof body.personSchema, PersonView>>,
  Holds<Accepts<typeof body.tokenSchema, TokenView>>,
  Holds<Accepts<typeof body.overviewSchema, Overview>>,
  Holds<Accepts<typeof body.assigneeListSchema, { people: AssigneeOption[] }>>,
  Holds<Accepts<typeof body.approvalSchema, ApprovalView>>,
  Holds<Accepts<typeof body.approvalPolicySchema, PolicyView>>,
];
