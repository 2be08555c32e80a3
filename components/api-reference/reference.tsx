import { Fragment, type ReactNode } from "react";
import type {
  ApiReferenceModel,
  ReferenceContent,
  ReferenceOperation,
  ReferenceTag,
  SchemaSummary,
} from "@/lib/openapi/reference";
import styles from "./reference.module.css";

// The API reference (/api-reference, docs/decisions/0015-openapi.md), rendered on the server from
// the OpenAPI document the console serves: operations by tag, each with its method and path, who
// may call it, its parameters, request body and answers; then the schemas they name. Plain HTML
// (headings, lists, links): no script, nothing from another host, readable at any width.

/** `code` spans of the document's short Markdown as <code>; everything else as text. */
export function InlineText({ text }: { text: string }) {
  const parts = text.split(/`([^`]+)`/);
  return (
    <>{parts.map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : <Fragment key={i}>{part}</Fragment>))}</>
  );
}

const METHOD_TONE: Record<string, string | undefined> = {
  GET: styles.get,
  POST: styles.post,
  PUT: styles.put,
  PATCH: styles.put,
  DELETE: styles.delete,
};

function Method({ method }: { method: string }) {
  return <span className={`${styles.method} ${METHOD_TONE[method] ?? ""}`}>{method}</span>;
}

function Endpoint({ operation }: { operation: ReferenceOperation }) {
  return (
    <>
      <Method method={operation.method} /> <code className={styles.path}>{operation.path}</code>
    </>
  );
}

/** The schema's type in a few words: a link to a named schema, "array of X", "map of X". */
function TypeLabel({ schema }: { schema: SchemaSummary }) {
  let label: ReactNode;
  if (schema.ref) label = <a href={`#schema-${schema.ref}`}>{schema.ref}</a>;
  else if (schema.type === "array" && schema.items)
    label = (
      <>
        array of <TypeLabel schema={schema.items} />
      </>
    );
  else if (schema.type === "map" && schema.values)
    label = (
      <>
        map of <TypeLabel schema={schema.values} />
      </>
    );
  else label = schema.type;
  return (
    <>
      {label}
      {schema.nullable ? " or null" : null}
    </>
  );
}

/** What is worth showing below a type: fields, alternatives, or the insides of an inline array's items. */
function innerOf(schema: SchemaSummary): SchemaSummary | null {
  if (schema.ref) return null;
  if (schema.properties.length > 0 || schema.alternatives.length > 0) return schema;
  if (schema.items) return innerOf(schema.items);
  if (schema.values) return innerOf(schema.values);
  return null;
}

function innerFacts(schema: SchemaSummary): string[] {
  if (schema.ref) return [];
  const nested = schema.items ?? schema.values;
  return [...schema.facts, ...(nested ? innerFacts(nested).map((f) => `each: ${f}`) : [])];
}

function Details({ schema }: { schema: SchemaSummary }) {
  const facts = innerFacts(schema);
  const inner = innerOf(schema);
  return (
    <>
      {facts.length > 0 ? <span className={styles.facts}>{facts.join(" · ")}</span> : null}
      {schema.description ? (
        <span className={styles.description}>
          <InlineText text={schema.description} />
        </span>
      ) : null}
      {inner ? <Members schema={inner} /> : null}
    </>
  );
}

/** An object's fields, or the shapes of a "one of". */
function Members({ schema }: { schema: SchemaSummary }) {
  if (schema.properties.length > 0) {
    return (
      <ul className={styles.fields}>
        {schema.properties.map((property) => (
          <li key={property.name}>
            <code className={styles.fieldName}>{property.name}</code>{" "}
            <span className={styles.type}>
              <TypeLabel schema={property.schema} />
            </span>{" "}
            <span className={property.required ? styles.required : styles.optional}>
              {property.required ? "required" : "optional"}
            </span>
            <Details schema={property.schema} />
          </li>
        ))}
      </ul>
    );
  }
  return (
    <ul className={styles.fields} aria-label="One of">
      {schema.alternatives.map((alternative, i) => (
        <li key={i}>
          <span className={styles.type}>
            <TypeLabel schema={alternative} />
          </span>
          <Details schema={alternative} />
        </li>
      ))}
    </ul>
  );
}

/** A body or an answer's content: its media type and schema. */
function Content({ content }: { content: ReferenceContent }) {
  return (
    <div className={styles.content}>
      <span className={styles.mediaType}>{content.mediaType}</span>
      {content.schema ? (
        <>
          {" "}
          <span className={styles.type}>
            <TypeLabel schema={content.schema} />
          </span>
          <Details schema={content.schema} />
        </>
      ) : null}
    </div>
  );
}

function statusTone(status: string): string {
  if (status.startsWith("2") || status.startsWith("3")) return styles.statusOk ?? "";
  if (status.startsWith("5")) return styles.statusServer ?? "";
  return styles.statusClient ?? "";
}

function Operation({ operation }: { operation: ReferenceOperation }) {
  const titleId = `${operation.anchor}-title`;
  return (
    <section id={operation.anchor} aria-labelledby={titleId} className={styles.operation}>
      <h3 id={titleId} className={styles.operationTitle}>
        {operation.summary}
      </h3>
      <p className={styles.endpoint}>
        <Endpoint operation={operation} />
      </p>
      {operation.description.map((text, i) => (
        <p key={i} className={styles.prose}>
          <InlineText text={text} />
        </p>
      ))}
      <dl className={styles.meta}>
        <div>
          <dt>Who may call it</dt>
          <dd>
            {operation.roles.length > 0
              ? `${operation.roles.join(", ")} (permission ${operation.permission})`
              : operation.credentials.length > 0
                ? "any signed-in person"
                : "anyone (public)"}
          </dd>
        </div>
        {operation.credentials.length > 0 ? (
          <div>
            <dt>Credentials</dt>
            <dd>{operation.credentials.join(" or ")}</dd>
          </div>
        ) : null}
        <div>
          <dt>Operation id</dt>
          <dd>
            <code>{operation.operationId}</code>
          </dd>
        </div>
      </dl>
      {operation.parameters.length > 0 ? (
        <>
          <h4 className={styles.partTitle}>Parameters</h4>
          <ul className={styles.fields}>
            {operation.parameters.map((parameter) => (
              <li key={`${parameter.in}-${parameter.name}`}>
                <code className={styles.fieldName}>{parameter.name}</code>{" "}
                <span className={styles.type}>
                  <TypeLabel schema={parameter.schema} />
                </span>{" "}
                <span className={styles.where}>in {parameter.in}</span>{" "}
                <span className={parameter.required ? styles.required : styles.optional}>
                  {parameter.required ? "required" : "optional"}
                </span>
                <Details
                  schema={{
                    ...parameter.schema,
                    description: parameter.description ?? parameter.schema.description,
                  }}
                />
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {operation.body ? (
        <>
          <h4 className={styles.partTitle}>Request body{operation.body.required ? " (required)" : ""}</h4>
          {operation.body.content.map((content) => (
            <Content key={content.mediaType} content={content} />
          ))}
        </>
      ) : null}
      <h4 className={styles.partTitle}>Answers</h4>
      <ul className={styles.responses}>
        {operation.responses.map((response) => (
          <li key={response.status}>
            <span className={`${styles.status} ${statusTone(response.status)}`}>{response.status}</span>{" "}
            <InlineText text={response.description} />
            {response.headers.map((header) => (
              <div key={header.name} className={styles.content}>
                Header <code>{header.name}</code>
                {header.description ? `: ${header.description}` : null}
              </div>
            ))}
            {response.content.map((content) => (
              <Content key={content.mediaType} content={content} />
            ))}
          </li>
        ))}
      </ul>
    </section>
  );
}

function TagSection({ tag }: { tag: ReferenceTag }) {
  const titleId = `${tag.anchor}-title`;
  return (
    <section id={tag.anchor} aria-labelledby={titleId} className={styles.tag}>
      <h2 id={titleId}>{tag.name}</h2>
      {tag.description ? (
        <p className={styles.prose}>
          <InlineText text={tag.description} />
        </p>
      ) : null}
      {tag.operations.map((operation) => (
        <Operation key={operation.anchor} operation={operation} />
      ))}
    </section>
  );
}

function Contents({ model }: { model: ApiReferenceModel }) {
  return (
    <nav aria-label="API contents" className={styles.contents}>
      <ul>
        {model.tags.map((tag) => (
          <li key={tag.anchor}>
            <a href={`#${tag.anchor}`} className={styles.contentsTag}>
              {tag.name}
            </a>
            <ul>
              {tag.operations.map((operation) => (
                <li key={operation.anchor}>
                  <a href={`#${operation.anchor}`}>
                    <span className={styles.contentsMethod}>{operation.method}</span> {operation.path}
                  </a>
                </li>
              ))}
            </ul>
          </li>
        ))}
        <li>
          <a href="#schemas" className={styles.contentsTag}>
            Schemas
          </a>
        </li>
      </ul>
    </nav>
  );
}

export function ApiReference({ model, documentUrl }: { model: ApiReferenceModel; documentUrl: string }) {
  return (
    <div className={styles.reference}>
      <div className={styles.intro}>
        <h1 className={styles.title}>{model.title}</h1>
        <p className="rc-muted">
          Version {model.version} · OpenAPI 3.1 · the document itself: <a href={documentUrl}>{documentUrl}</a>
        </p>
        {model.description.map((text, i) => (
          <p key={i} className={styles.prose}>
            <InlineText text={text} />
          </p>
        ))}
        {model.credentials.length > 0 ? (
          <dl className={styles.meta}>
            {model.credentials.map((credential) => (
              <div key={credential.name}>
                <dt>{credential.name}</dt>
                <dd>{credential.description ? <InlineText text={credential.description} /> : null}</dd>
              </div>
            ))}
          </dl>
        ) : null}
      </div>
      <div className={styles.layout}>
        <Contents model={model} />
        <div className={styles.body}>
          {model.tags.map((tag) => (
            <TagSection key={tag.anchor} tag={tag} />
          ))}
          <section id="schemas" aria-labelledby="schemas-title" className={styles.tag}>
            <h2 id="schemas-title">Schemas</h2>
            <p className={styles.prose}>The named shapes the operations above refer to.</p>
            {model.schemas.map(({ name, anchor, schema }) => (
              <section key={name} id={anchor} aria-labelledby={`${anchor}-title`} className={styles.operation}>
                <h3 id={`${anchor}-title`} className={styles.operationTitle}>
                  {name}
                </h3>
                <p className={styles.endpoint}>
                  <span className={styles.type}>
                    <TypeLabel schema={schema} />
                  </span>
                </p>
                <Details schema={schema} />
              </section>
            ))}
          </section>
        </div>
      </div>
    </div>
  );
}
