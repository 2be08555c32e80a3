// The API reference page (/api-reference, docs/decisions/0015-openapi.md) as plain data: the
// OpenAPI document the console serves, read into tags, operations and schemas that the page's
// server components render as they are. Everything here comes from the document itself (never
// from the operation table directly), so the page shows exactly what /api/openapi.json says.

/** A JSON Schema object as zod-openapi writes it (OpenAPI 3.1: JSON Schema 2020-12). */
export type JsonSchema = { [key: string]: unknown };

interface OpenApiParameter {
  in: string;
  name: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}
interface OpenApiMedia {
  schema?: JsonSchema;
}
interface OpenApiResponse {
  description?: string;
  headers?: Record<string, { description?: string; required?: boolean; schema?: JsonSchema }>;
  content?: Record<string, OpenApiMedia>;
}
interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  "x-permission"?: string;
  "x-roles"?: string[];
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, OpenApiMedia> };
  responses?: Record<string, OpenApiResponse>;
}
/** The parts of an OpenAPI 3.1 document the reference reads. */
export interface OpenApiDocumentLike {
  info: { title: string; version: string; description?: string };
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, OpenApiOperation>>;
  components?: {
    schemas?: Record<string, JsonSchema>;
    securitySchemes?: Record<string, { description?: string }>;
  };
}

/** What a schema says, in the words the page shows. */
export interface SchemaSummary {
  /** "string", "integer", "object", "array", "boolean", "null", "any", or "one of" for alternatives. */
  type: string;
  /** The component schema this is a reference to (its section on the page). */
  ref?: string;
  /** The value may also be null. */
  nullable: boolean;
  description?: string;
  /** Constraints in words: "1 to 200 characters", "at least 0", "format uuid", "one of: a, b". */
  facts: string[];
  /** An object's fields, in the document's order. */
  properties: PropertySummary[];
  /** An array's elements. */
  items?: SchemaSummary;
  /** A map's values (an object with `additionalProperties` and no fixed fields). */
  values?: SchemaSummary;
  /** anyOf/oneOf: the shapes the value may take. */
  alternatives: SchemaSummary[];
}

export interface PropertySummary {
  name: string;
  required: boolean;
  schema: SchemaSummary;
}

export interface ReferenceParameter {
  name: string;
  in: string;
  required: boolean;
  description?: string;
  schema: SchemaSummary;
}

export interface ReferenceContent {
  mediaType: string;
  schema?: SchemaSummary;
}

export interface ReferenceResponse {
  status: string;
  description: string;
  headers: { name: string; description?: string }[];
  content: ReferenceContent[];
}

export interface ReferenceOperation {
  /** The element id of its section: `op-<operationId>`. */
  anchor: string;
  method: string;
  path: string;
  operationId: string;
  summary: string;
  /** Paragraphs; the first says who may call it (lib/openapi/operation.ts, accessText). */
  description: string[];
  permission?: string;
  roles: string[];
  /** How to authenticate, in words ("bearer token", "session cookie"); empty when public. */
  credentials: string[];
  parameters: ReferenceParameter[];
  body?: { required: boolean; content: ReferenceContent[] };
  responses: ReferenceResponse[];
}

export interface ReferenceTag {
  name: string;
  anchor: string;
  description?: string;
  operations: ReferenceOperation[];
}

export interface ApiReferenceModel {
  title: string;
  version: string;
  description: string[];
  /** The ways to authenticate (components.securitySchemes), in words. */
  credentials: { name: string; description?: string }[];
  tags: ReferenceTag[];
  schemas: { name: string; anchor: string; schema: SchemaSummary }[];
}

const METHODS = ["get", "put", "post", "patch", "delete", "head", "options"] as const;

/** zod writes JavaScript's safe-integer range on every z.int(): a bound no one needs to read. */
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

const CREDENTIAL_WORDS: Record<string, string> = { bearerToken: "bearer token", sessionCookie: "session cookie" };

/** The element id of a component schema's section. */
export function schemaAnchor(name: string): string {
  return `schema-${name}`;
}

function anchorText(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-|-$/g, "");
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function refName(ref: unknown): string | undefined {
  return typeof ref === "string" && ref.startsWith("#/components/schemas/")
    ? decodeURIComponent(ref.slice("#/components/schemas/".length))
    : undefined;
}

function literal(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function lengthFact(min: unknown, max: unknown, unit: string): string | undefined {
  const lo = typeof min === "number" ? min : undefined;
  const hi = typeof max === "number" ? max : undefined;
  if (lo !== undefined && hi !== undefined) return lo === hi ? `exactly ${lo} ${unit}` : `${lo} to ${hi} ${unit}`;
  if (lo !== undefined && lo > 0) return `at least ${lo} ${unit}`;
  if (hi !== undefined) return `at most ${hi} ${unit}`;
  return undefined;
}

function factsOf(schema: JsonSchema): string[] {
  const facts: string[] = [];
  if (Array.isArray(schema.enum)) facts.push(`one of: ${schema.enum.map(literal).join(", ")}`);
  if ("const" in schema) facts.push(`always ${literal(schema.const)}`);
  if (typeof schema.format === "string") facts.push(`format ${schema.format}`);
  const chars = lengthFact(schema.minLength, schema.maxLength, "characters");
  if (chars) facts.push(chars);
  const items = lengthFact(schema.minItems, schema.maxItems, "items");
  if (items) facts.push(items);
  const min = typeof schema.minimum === "number" && schema.minimum > -SAFE_INTEGER ? schema.minimum : undefined;
  const max = typeof schema.maximum === "number" && schema.maximum < SAFE_INTEGER ? schema.maximum : undefined;
  if (min !== undefined && max !== undefined) facts.push(`${min} to ${max}`);
  else if (min !== undefined) facts.push(`at least ${min}`);
  else if (max !== undefined) facts.push(`at most ${max}`);
  if (typeof schema.exclusiveMinimum === "number") facts.push(`more than ${schema.exclusiveMinimum}`);
  if (typeof schema.exclusiveMaximum === "number") facts.push(`less than ${schema.exclusiveMaximum}`);
  if (typeof schema.pattern === "string") facts.push(`matches ${schema.pattern}`);
  if ("default" in schema) facts.push(`default ${literal(schema.default)}`);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) {
    facts.push(`e.g. ${schema.examples.slice(0, 3).map(literal).join(", ")}`);
  }
  return facts;
}

const isNullSchema = (s: unknown) => isSchema(s) && s.type === "null" && Object.keys(s).length === 1;

/**
 * What `schema` says. References are not followed (the page links to the component's own
 * section), so a recursive schema cannot recurse here; inline schemas are read to any depth.
 */
export function summarizeSchema(schema: unknown): SchemaSummary {
  const base: SchemaSummary = { type: "any", nullable: false, facts: [], properties: [], alternatives: [] };
  if (!isSchema(schema)) return base;
  const description = typeof schema.description === "string" ? schema.description : undefined;
  const ref = refName(schema.$ref);
  if (ref) return { ...base, type: ref, ref, description };

  const branches = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null) as
    unknown[] | null;
  if (branches) {
    const others = branches.filter((b) => !isNullSchema(b));
    const nullable = others.length < branches.length;
    if (others.length === 1) {
      // `X or null`: X itself, marked nullable; the outer description wins.
      const inner = summarizeSchema(others[0]);
      return { ...inner, nullable: true, description: description ?? inner.description };
    }
    return { ...base, type: "one of", nullable, description, alternatives: others.map(summarizeSchema) };
  }

  const types = Array.isArray(schema.type)
    ? (schema.type as string[])
    : typeof schema.type === "string"
      ? [schema.type]
      : [];
  const nonNull = types.filter((t) => t !== "null");
  const type =
    nonNull.length === 1
      ? nonNull[0]!
      : nonNull.length > 1
        ? nonNull.join(" or ")
        : "const" in schema
          ? typeof schema.const
          : "any";
  const summary: SchemaSummary = {
    ...base,
    type,
    nullable: types.includes("null"),
    description,
    facts: factsOf(schema),
  };
  if (isSchema(schema.properties)) {
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    summary.properties = Object.entries(schema.properties).map(([name, value]) => ({
      name,
      required: required.has(name),
      schema: summarizeSchema(value),
    }));
  }
  if (schema.items !== undefined) summary.items = summarizeSchema(schema.items);
  if (isSchema(schema.additionalProperties) && summary.properties.length === 0) {
    summary.type = "map";
    summary.values = summarizeSchema(schema.additionalProperties);
    if (isSchema(schema.propertyNames)) {
      const keys = factsOf(schema.propertyNames);
      if (keys.length > 0) summary.facts.push(`keys: ${keys.join("; ")}`);
    }
  }
  return summary;
}

/** Blank-line separated paragraphs (the document's descriptions are short Markdown). */
export function paragraphs(text: string | undefined): string[] {
  return (text ?? "")
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
}

function contentOf(content: Record<string, OpenApiMedia> | undefined): ReferenceContent[] {
  return Object.entries(content ?? {}).map(([mediaType, media]) => ({
    mediaType,
    ...(media.schema ? { schema: summarizeSchema(media.schema) } : {}),
  }));
}

function operationOf(method: string, path: string, op: OpenApiOperation): ReferenceOperation {
  const operationId = op.operationId ?? `${method}-${path}`;
  const credentials = [...new Set((op.security ?? []).flatMap((s) => Object.keys(s)))].map(
    (scheme) => CREDENTIAL_WORDS[scheme] ?? scheme,
  );
  return {
    anchor: `op-${anchorText(operationId)}`,
    method: method.toUpperCase(),
    path,
    operationId,
    summary: op.summary ?? `${method.toUpperCase()} ${path}`,
    description: paragraphs(op.description),
    ...(op["x-permission"] ? { permission: op["x-permission"] } : {}),
    roles: op["x-roles"] ?? [],
    credentials,
    parameters: (op.parameters ?? []).map((p) => ({
      name: p.name,
      in: p.in,
      required: p.required ?? p.in === "path",
      description: p.description,
      schema: summarizeSchema(p.schema),
    })),
    ...(op.requestBody
      ? { body: { required: op.requestBody.required ?? false, content: contentOf(op.requestBody.content) } }
      : {}),
    responses: Object.entries(op.responses ?? {})
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, response]) => ({
        status,
        description: response.description ?? "",
        headers: Object.entries(response.headers ?? {}).map(([name, header]) => ({
          name,
          description: header.description,
        })),
        content: contentOf(response.content),
      })),
  };
}

/** The document as the page shows it: operations by tag (in the document's tag order), then schemas. */
export function referenceModel(document: OpenApiDocumentLike): ApiReferenceModel {
  const tags = new Map<string, ReferenceTag>();
  for (const tag of document.tags ?? []) {
    tags.set(tag.name, {
      name: tag.name,
      anchor: `tag-${anchorText(tag.name)}`,
      description: tag.description,
      operations: [],
    });
  }
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const name = op.tags?.[0] ?? "Other";
      if (!tags.has(name)) tags.set(name, { name, anchor: `tag-${anchorText(name)}`, operations: [] });
      tags.get(name)!.operations.push(operationOf(method, path, op));
    }
  }
  return {
    title: document.info.title,
    version: document.info.version,
    description: paragraphs(document.info.description),
    credentials: Object.entries(document.components?.securitySchemes ?? {}).map(([scheme, value]) => ({
      name: CREDENTIAL_WORDS[scheme] ?? scheme,
      description: value.description,
    })),
    tags: [...tags.values()].filter((t) => t.operations.length > 0),
    schemas: Object.entries(document.components?.schemas ?? {}).map(([name, schema]) => ({
      name,
      anchor: schemaAnchor(name),
      schema: summarizeSchema(schema),
    })),
  };
}
