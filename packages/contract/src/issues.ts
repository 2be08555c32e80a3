import type { z } from "zod";

export interface ContractIssue {
  path: string;
  message: string;
}

// Review records and the console show one flat string per issue, so zod's key
// arrays become dotted paths; a prefix re-anchors a sub-schema's issues
// (e.g. a payload schema) at their place in the whole envelope.
export function toIssues(error: z.ZodError, prefix?: string): ContractIssue[] {
  return error.issues.map((issue) => {
    const segments = issue.path.map((key) => String(key));
    const path = [prefix, ...segments].filter((s) => s !== undefined && s !== "").join(".");
    return { path, message: issue.message };
  });
}
