"use client";

import { useMemo } from "react";
import { Section } from "@/components/ui/section";
import { Time } from "./badges";
import { jsonChanges } from "./json-diff";
import { JsonDiffView } from "./json-diff-view";
import styles from "./record.module.css";
import type { ReviewDetail, ReviewRevision } from "./types";

function RevisionItem({ revision, original }: { revision: ReviewRevision; original: unknown }) {
  const changes = useMemo(() => jsonChanges(original, revision.envelope), [original, revision.envelope]);
  return (
    <li className={styles.revision}>
      <h3 className={styles.itemTitle}>
        Revision {revision.number}
        <span className="rc-muted">
          {" "}
          by {revision.createdBy} · <Time iso={revision.createdAt} />
        </span>
      </h3>
      <p className={styles.quote}>
        <span className="rc-muted">Reason: </span>
        {revision.reason}
      </p>
      <JsonDiffView changes={changes} caption={`Revision ${revision.number} against the message as received`} />
      <details className={styles.details}>
        <summary>Full envelope of revision {revision.number}</summary>
        <pre className={styles.pre} tabIndex={0} aria-label={`Envelope of revision ${revision.number}`}>
          {JSON.stringify(revision.envelope, null, 2)}
        </pre>
      </details>
    </li>
  );
}

export function RevisionsSection({ record }: { record: ReviewDetail }) {
  return (
    <Section title={`Payload revisions (${record.revisions.length})`} layout="flow">
      {record.revisions.length === 0 ? (
        <p className="rc-muted">
          No corrections. A replay sends the message as received, with the same id and effectKey.
        </p>
      ) : (
        <ol className={styles.plainList}>
          {record.revisions.map((revision) => (
            <RevisionItem key={revision.number} revision={revision} original={record.message} />
          ))}
        </ol>
      )}
    </Section>
  );
}
