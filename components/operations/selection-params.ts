import { OPERATION_ACTIONS, type OperationAction, type Selection } from "@/lib/operations/client";
import { isUuid } from "@/lib/domain/ids";

// The new-operation form's query string: `action`, and one of `ids` (comma-separated), `filter`
// (JSON of the queue's filters), `group` (JSON of a cause) or `unfinished` (an ended operation's id:
// what it did not finish). The queue writes these links and the
// form reads them back; anything malformed is reported, never guessed.

/** Past this many ids a link gets long; the queue offers "this filter" instead. */
export const MAX_IDS_IN_LINK = 200;

/** The list's filters an operation may select by (docs/operations.md), in the order they are described. */
export const FILTER_KEYS = [
  "status",
  "category",
  "reason",
  "kind",
  "errorClass",
  "sequenceKey",
  "effectKey",
  "messageId",
  "q",
  // "Mine" in the queue: `me` until the operation is created, then the creator's id.
  "assignee",
] as const;

/** The `problem` of a link that names no selection at all: the form offers to choose one. */
export const NO_SELECTION = "No records are chosen yet.";

export interface NewOperationParams {
  action: OperationAction;
  selection: Selection | null;
  /** Why the query string holds no usable selection. */
  problem: string | null;
}

export function newOperationHref(action: OperationAction, selection: Selection): string {
  const search = new URLSearchParams({ action });
  if (selection.type === "ids") search.set("ids", selection.ids.join(","));
  else if (selection.type === "filter") search.set("filter", JSON.stringify(selection.filter));
  else if (selection.type === "group") search.set("group", JSON.stringify(selection.group));
  else search.set("unfinished", selection.operationId);
  return `/operations/new?${search.toString().replaceAll("%2C", ",")}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function readIds(raw: string): Pick<NewOperationParams, "selection" | "problem"> {
  const ids = [...new Set(raw.split(",").map((id) => id.trim()))].filter(Boolean);
  const bad = ids.filter((id) => !isUuid(id));
  if (ids.length === 0) return { selection: null, problem: "The link names no records." };
  if (bad.length > 0) return { selection: null, problem: `These are not record ids: ${bad.slice(0, 5).join(", ")}.` };
  return { selection: { type: "ids", ids }, problem: null };
}

function readFilter(raw: string): Pick<NewOperationParams, "selection" | "problem"> {
  const value = parseJson(raw);
  if (!isObject(value)) return { selection: null, problem: "The filter in the link is not readable." };
  const filter: Record<string, string> = {};
  for (const key of FILTER_KEYS) {
    const v = value[key];
    if (typeof v === "string" && v.trim() !== "") filter[key] = v.trim();
  }
  if (Object.keys(filter).length === 0) {
    return { selection: null, problem: "The filter in the link is empty: an operation needs at least one filter." };
  }
  return { selection: { type: "filter", filter }, problem: null };
}

function readGroup(raw: string): Pick<NewOperationParams, "selection" | "problem"> {
  const value = parseJson(raw);
  const nullableText = (v: unknown) => v === null || v === undefined || typeof v === "string";
  if (
    !isObject(value) ||
    typeof value.reason !== "string" ||
    !nullableText(value.kind) ||
    !nullableText(value.errorClass)
  ) {
    return { selection: null, problem: "The cause in the link is not readable." };
  }
  return {
    selection: {
      type: "group",
      group: {
        kind: typeof value.kind === "string" ? value.kind : null,
        reason: value.reason,
        errorClass: typeof value.errorClass === "string" ? value.errorClass : null,
      },
    },
    problem: null,
  };
}

function readUnfinished(raw: string): Pick<NewOperationParams, "selection" | "problem"> {
  const operationId = raw.trim();
  if (!isUuid(operationId)) return { selection: null, problem: `This is not an operation id: ${operationId}.` };
  return { selection: { type: "unfinished", operationId }, problem: null };
}

export function readNewOperationParams(get: (key: string) => string | null | undefined): NewOperationParams {
  const rawAction = get("action");
  const action = OPERATION_ACTIONS.find((a) => a === rawAction) ?? "replay";
  const ids = get("ids");
  const filter = get("filter");
  const group = get("group");
  const unfinished = get("unfinished");
  const given = [ids, filter, group, unfinished].filter((v) => v !== null && v !== undefined).length;
  if (given === 0) {
    return { action, selection: null, problem: NO_SELECTION };
  }
  if (given > 1) return { action, selection: null, problem: "The link names more than one selection." };
  const read =
    ids != null
      ? readIds(ids)
      : filter != null
        ? readFilter(filter)
        : unfinished != null
          ? readUnfinished(unfinished)
          : readGroup(group ?? "");
  return { action, ...read };
}
