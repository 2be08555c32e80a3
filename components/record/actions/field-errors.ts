import type { FieldIssue } from "@/lib/domain/refusal";

/** Messages by form field: `reason`, `checkDone`, `runAt`, `providerRef`, `payload`, `envelope.<field>`, `form`. */
export type FieldErrors = Record<string, string[]>;

export function fieldOf(path: string): string {
  if (path === "payload" || path.startsWith("payload.") || path.startsWith("payload[")) return "payload";
  if (path.startsWith("envelope.")) return path.split(".").slice(0, 2).join(".");
  if (path === "") return "form";
  return path.split(".")[0] ?? "form";
}

/** Groups issues by field; payload issues keep their full path (`payload.invoiceId: …`). */
export function groupIssues(issues: readonly FieldIssue[]): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of issues) {
    const field = fieldOf(issue.path);
    const text = field === "payload" && issue.path !== "payload" ? `${issue.path}: ${issue.message}` : issue.message;
    (out[field] ??= []).push(text);
  }
  return out;
}
