/**
 * Checks, outside production, that the status an API route answered is one its OpenAPI
 * operation documents. Filled in by the OpenAPI work; a no-op until then.
 */
export function checkDocumentedStatus(_answer: { route: string; status: number }): void {}
