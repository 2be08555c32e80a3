"use client";

import { useQuery } from "@tanstack/react-query";
import { Button } from "@/components/ui/button";
import { describeError } from "@/components/ui/states";
import { Time } from "@/components/ui/time-zone";
import { chainVerificationOptions } from "./queries";
import styles from "./audit.module.css";

const numberFormat = new Intl.NumberFormat("en-US");

/**
 * The hash chain's verdict: intact with N entries, or broken at entry N and why, with "Verify
 * now". A live region, so the outcome of a requested check is announced.
 */
export function ChainStatus() {
  const check = useQuery(chainVerificationOptions());
  const verdict = check.data;
  const tone = check.isError && !verdict ? "" : verdict?.ok ? styles.verifyOk : verdict ? styles.verifyBroken : "";
  return (
    <section className={`${styles.verification} ${tone}`} aria-label="Hash chain verification">
      <p className={styles.verifyText} role="status" aria-live="polite">
        {check.isPending ? (
          "Checking the decision log's hash chain…"
        ) : check.isError && !verdict ? (
          <>
            <strong>The chain could not be checked.</strong> {describeError(check.error).advice}
          </>
        ) : verdict?.ok ? (
          <>
            <span className={styles.verifyIcon} aria-hidden="true">
              ✓{" "}
            </span>
            <strong>Chain intact:</strong> {numberFormat.format(verdict.entries)} entries verified.{" "}
            <span className={styles.verifyMeta}>
              Checked <Time iso={verdict.checkedAt} />.
            </span>
          </>
        ) : verdict ? (
          <>
            <span className={styles.verifyIcon} aria-hidden="true">
              ✗{" "}
            </span>
            <strong>
              Chain broken at {verdict.brokenSeq === "head" ? "the chain's head" : `entry ${verdict.brokenSeq ?? "?"}`}:
            </strong>{" "}
            {(verdict.problem ?? "the entry does not match its hash").replace(/\.$/, "")}.{" "}
            <span
              className={styles.verifyMeta}
              title="Entries from this one on cannot be trusted until it is explained."
            >
              {numberFormat.format(verdict.entries)} entries checked, <Time iso={verdict.checkedAt} />.
            </span>
          </>
        ) : null}
      </p>
      <Button size="sm" onClick={() => void check.refetch()} disabled={check.isFetching}>
        {check.isFetching ? "Verifying…" : "Verify now"}
      </Button>
    </section>
  );
}
