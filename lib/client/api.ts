// The console's only way to the server: same-origin fetches of the public API, with the
// session cookie. Errors keep the API's `{error: {code, message, issues}}` so forms can show
// which field is wrong, and a 409 keeps the fresh record the server sends with it.

import type { FieldIssue } from "@/lib/domain/refusal";

export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: FieldIssue[] = [],
    /** The whole answer, e.g. `{error, record}` of a 409 on a stale version. */
    readonly body: unknown = null,
  ) {
    super(message);
  }
}

async function request<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(path, {
    ...init,
    credentials: "same-origin",
    headers: { accept: "application/json", ...(init?.body ? { "content-type": "application/json" } : {}) },
  });
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's HTML error page, say): keep the status, report it as an API error.
    body = null;
  }
  if (!response.ok) {
    const error = (body as { error?: { code?: string; message?: string; issues?: FieldIssue[] } } | null)?.error;
    throw new ApiRequestError(
      response.status,
      error?.code ?? "http-error",
      error?.message ?? `request failed (${response.status})`,
      error?.issues ?? [],
      body,
    );
  }
  return body as T;
}

export function apiGet<T>(path: string, signal?: AbortSignal): Promise<T> {
  return request<T>(path, { signal });
}

export function apiPost<T>(path: string, body: unknown): Promise<T> {
  return request<T>(path, { method: "POST", body: JSON.stringify(body) });
}

export function apiPut<T>(path: string, body: unknown): Promise<T> {
  return request<T>(path, { method: "PUT", body: JSON.stringify(body) });
}

/** `?a=1&b=2` from the defined, non-empty values of `params`. */
export function queryString(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** DELETE with a JSON body: the API's removals take a reason for the decision log. */
export function apiDelete<T>(path: string, body: unknown): Promise<T> {
  return request<T>(path, { method: "DELETE", body: JSON.stringify(body) });
}
