"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { type ReactNode, useMemo, useState } from "react";
import { Section } from "@/components/ui/section";
import { ErrorState } from "@/components/ui/states";
import { Time, useTimes } from "@/components/ui/time-zone";
import { useUrlParams } from "@/components/ui/use-url-params";
import { ArrivalsChart } from "./arrivals-chart";
import { ArrivalsTable } from "./arrivals-table";
import {
  type ArrivalDimension,
  arrivalsSummary,
  bucketZone,
  DIMENSIONS,
  formatCount,
  formatDuration,
  isWindow,
  type Overview,
  type OverviewWindow,
  topSeries,
  WINDOWS,
} from "./model";
import styles from "./overview.module.css";
import { overviewOptions } from "./queries";
import { ResolutionTable } from "./resolution-table";

/** A row of toggle buttons (one pressed): the window, the arrivals' dimension. */
function Toggle<T extends string>({
  label,
  options,
  value,
  onChange,
}: {
  label: string;
  options: { value: T; label: string }[];
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <div className={styles.toggle} role="group" aria-label={label}>
      {options.map((option) => (
        <button
          key={option.value}
          type="button"
          className={styles.toggleButton}
          aria-pressed={option.value === value}
          onClick={() => onChange(option.value)}
        >
          {option.label}
        </button>
      ))}
    </div>
  );
}

function Arrivals({ overview }: { overview: Overview }) {
  const [dimension, setDimension] = useState<ArrivalDimension>("byCategory");
  const { buckets, bucket } = overview.arrivals;
  const series = useMemo(
    () => topSeries(overview.arrivals[dimension], buckets.length),
    [overview.arrivals, dimension, buckets.length],
  );
  const noun = DIMENSIONS.find((d) => d.value === dimension)?.noun ?? "";
  const { zone } = useTimes();
  const caption = `Records arriving per ${bucket} (${bucketZone(bucket, zone)}) by ${noun}`;
  return (
    <Section
      title="Arrivals"
      note={`${formatCount(overview.arrivals.total)} records first seen in ${
        WINDOWS.find((w) => w.value === overview.window)?.long ?? overview.window
      }`}
      actions={<Toggle label="Arrivals by" options={DIMENSIONS} value={dimension} onChange={setDimension} />}
    >
      <ArrivalsChart buckets={buckets} bucket={bucket} series={series} summary={arrivalsSummary(overview, dimension)} />
      <details className={styles.tableDetails}>
        <summary>The chart as a table</summary>
        <ArrivalsTable caption={caption} buckets={buckets} bucket={bucket} series={series} />
      </details>
    </Section>
  );
}

function Figure({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className={styles.figure}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function Waiting({ overview }: { overview: Overview }) {
  const oldest = overview.oldestOpen;
  // Scoped readers see their domains only (ADR 0030); global ones learn what lies in no domain.
  const domains = overview.scope?.domains;
  const note = domains
    ? `Records in status open, in ${domains.join(", ") || "none of the domains"}`
    : "Records in status open";
  const noDomain = overview.scope?.openInNoDomain;
  return (
    <Section title="Waiting now" note={note}>
      <dl className={styles.figures}>
        <Figure label="Open">
          <Link href="/reviews?status=open">{formatCount(overview.open.total)}</Link>
        </Figure>
        {Object.entries(overview.open.byCategory).map(([category, n]) => (
          <Figure key={category} label={category}>
            <Link href={`/reviews?status=open&category=${encodeURIComponent(category)}`}>{formatCount(n)}</Link>
          </Figure>
        ))}
        <Figure label="Oldest open">
          {oldest ? (
            <>
              <Link href={`/reviews/${oldest.id}`}>{formatDuration(oldest.ageSeconds)}</Link>{" "}
              <span className={styles.muted}>
                {oldest.kind ?? "(none)"} · {oldest.reason}, since <Time iso={oldest.firstSeenAt} seconds={false} />
              </span>
            </>
          ) : (
            "none"
          )}
        </Figure>
        {noDomain !== null && noDomain !== undefined ? (
          <Figure label="In no domain">
            <span data-testid="open-in-no-domain">{formatCount(noDomain)}</span>
          </Figure>
        ) : null}
      </dl>
    </Section>
  );
}

function Resolution({ overview }: { overview: Overview }) {
  const { resolution } = overview;
  const note = resolution.sampled
    ? `Estimate: over the newest ${formatCount(resolution.sampleLimit)} records finished in the window`
    : `${formatCount(resolution.finished)} records resolved or cancelled in the window`;
  return (
    <Section title="Time to resolution" note={note}>
      <ResolutionTable resolution={resolution} />
      {resolution.truncated ? (
        <p className={styles.muted}>The {resolution.causes.length} causes with the most finished records.</p>
      ) : null}
    </Section>
  );
}

function Operations({ overview }: { overview: Overview }) {
  const { operations } = overview;
  return (
    <Section
      title="Operations in flight"
      note={`${formatCount(operations.inFlight)} planned, running, paused or awaiting continue`}
    >
      {operations.items.length === 0 ? (
        <p className={styles.muted}>No bulk operation is in flight.</p>
      ) : (
        <ul className={styles.operations}>
          {operations.items.map((operation) => (
            <li key={operation.id}>
              <Link href={`/operations/${operation.id}`}>
                {operation.action} of {formatCount(operation.total)} records
              </Link>{" "}
              <span className={styles.muted}>
                {operation.state} · {operation.reason}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

/**
 * The overview (the landing page of owners and support): arrivals, what waits, time to
 * resolution, operations in flight. `checkpoint` is the decision log's checkpoint status, read on
 * the server. The window is in the URL (`?window=7d`), so a shared link shows the same view.
 */
export function OverviewView({ checkpoint }: { checkpoint?: ReactNode }) {
  const [params, setParams] = useUrlParams();
  const requested = params.get("window");
  const window: OverviewWindow = isWindow(requested) ? requested : "24h";
  const query = useQuery({ ...overviewOptions(window), placeholderData: (previous) => previous });
  const overview = query.data;
  return (
    <div className={styles.page}>
      <div className={styles.titleRow}>
        <h1 className={styles.title}>Overview</h1>
        <Toggle
          label="Window"
          options={WINDOWS}
          value={window}
          onChange={(value) => setParams({ window: value === "24h" ? null : value })}
        />
        {overview ? (
          <p className={styles.muted}>
            As of <Time iso={overview.generatedAt} />
          </p>
        ) : null}
      </div>
      {query.isError && !overview ? (
        <ErrorState title="The overview could not be loaded" error={query.error} onRetry={() => void query.refetch()} />
      ) : !overview ? (
        <p className={styles.muted} role="status">
          Loading the overview…
        </p>
      ) : (
        <>
          <Arrivals overview={overview} />
          <div className={styles.columns}>
            <Waiting overview={overview} />
            <Operations overview={overview} />
          </div>
          <Resolution overview={overview} />
        </>
      )}
      {checkpoint}
    </div>
  );
}
