"use client";

import { useQuery } from "@tanstack/react-query";
import { ErrorState } from "@/components/ui/states";
import { useTimes } from "@/components/ui/time-zone";
import { type Role, type Grant, holdsPermission } from "@/lib/access/client";
import { Notice } from "@/components/ui/notice";
import { Topline } from "@/components/ui/topline";
import { DryRunSection } from "./dry-run-section";
import { ACTION_LABEL, formatCount } from "./model";
import { OperationStateBadge } from "./operation-badges";
import { OperationControls } from "./operation-controls";
import { OperationLog } from "./operation-log";
import { OperationProgress } from "./operation-progress";
import { OperationSummary } from "./operation-summary";
import styles from "./operations.module.css";
import { OutcomesSection } from "./outcomes-section";
import { liveInterval, operationOptions } from "./queries";

const OPERATIONS = { href: "/operations", label: "Operations" };

/** One bulk operation, live while it runs (docs/operations.md). */
/** `grants`: the person's (ADR 0030); the decision log's section needs a global grant. */
export function OperationView({ id, role, grants }: { id: string; role: Role; grants?: readonly Grant[] }) {
  const query = useQuery(operationOptions(id));
  const times = useTimes();
  const operation = query.data;

  if (!operation) {
    return (
      <div className={styles.page}>
        <Topline parent={OPERATIONS} />
        {query.isError ? (
          <ErrorState
            title="This operation could not be loaded"
            error={query.error}
            onRetry={() => void query.refetch()}
            retrying={query.isFetching}
          />
        ) : (
          <p role="status" className="rc-muted">
            Loading the operation…
          </p>
        )}
      </div>
    );
  }

  const live = liveInterval(operation);
  return (
    <div className={styles.page}>
      <Topline parent={OPERATIONS} current={<span className="rc-mono">{operation.id}</span>}>
        <p className={styles.live}>
          {query.isRefetchError
            ? `Could not refresh; showing the operation as of ${times.clock(query.dataUpdatedAt)}`
            : `${live ? "Live" : "Updated"} · ${times.clock(query.dataUpdatedAt)}`}
        </p>
      </Topline>
      <header className={styles.titleRow}>
        <h1 className={styles.title}>
          {ACTION_LABEL[operation.action] ?? operation.action} of {formatCount(operation.total)}{" "}
          {operation.total === 1 ? "record" : "records"}
        </h1>
        {/* A live region: a screen reader hears the state change (canary reached, auto-paused). */}
        <p role="status" aria-label="Operation state" className={styles.stateLine}>
          <span className="rc-visually-hidden">State: </span>
          <OperationStateBadge state={operation.state} outcome={operation.progress.outcome} />
        </p>
      </header>
      {operation.state === "paused" ? (
        // Not a live region: the state line above already announces the change.
        <Notice
          tone="warning"
          role="note"
          aria-labelledby="operation-paused-title"
          title="Paused"
          titleId="operation-paused-title"
        >
          <p>{operation.pauseReason ?? "No reason was given."}</p>
        </Notice>
      ) : null}
      {operation.state === "awaiting-continue" ? (
        <Notice tone="info" role="note" title="The canary is out: waiting for someone to continue" />
      ) : null}
      <OperationControls operation={operation} role={role} />
      <OperationProgress operation={operation} />
      <DryRunSection operation={operation} live={live} />
      <OperationSummary operation={operation} />
      <OutcomesSection operation={operation} live={live} />
      {holdsPermission(grants ?? role, "audit.read") ? <OperationLog operationId={operation.id} live={live} /> : null}
    </div>
  );
}
