/**
 * Observes one answered API request for the HTTP duration histogram (route pattern, method,
 * status). Filled in by the metrics work; a no-op until then.
 */
export function observeHttpRequest(_answer: { route: string; method: string; status: number; seconds: number }): void {}
