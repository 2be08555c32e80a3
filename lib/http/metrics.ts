import { APP_ROUTES } from "@/lib/http/route-match";
import { processMetrics } from "@/lib/metrics/process";

const KNOWN_ROUTES = new Set<string>(APP_ROUTES);

/**
 * Observes one answered API request for the HTTP duration histogram (route pattern, method,
 * status). `route` is the pattern apiRoute matched; a path that matched none (a handler called
 * with a path of its own) is `(unmatched)`: a raw path would make a series per id.
 */
export function observeHttpRequest(answer: { route: string; method: string; status: number; seconds: number }): void {
  processMetrics().httpDuration.observe(
    {
      route: KNOWN_ROUTES.has(answer.route) ? answer.route : "(unmatched)",
      method: answer.method,
      status: String(answer.status),
    },
    answer.seconds,
  );
}
