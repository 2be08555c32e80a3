import { Time } from "@/components/ui/time-zone";
import type { StoredCheckpoint } from "@/lib/audit";
import styles from "./audit.module.css";

const numberFormat = new Intl.NumberFormat("en-US");
const seqText = (seq: string) => numberFormat.format(BigInt(seq));

/**
 * The latest signed checkpoint stored in the database and whether the live log still holds its
 * entry with the signed hash. A server component: what it shows was read at render time. It is a
 * hint, not the proof: the signature is checked only by `review-console audit verify --checkpoint`
 * against a line and a public key kept outside the database (docs/threat-model.md).
 */
export function CheckpointStatus({ checkpoint }: { checkpoint: StoredCheckpoint | null | "unavailable" }) {
  const tone =
    checkpoint === null || checkpoint === "unavailable" ? "" : checkpoint.held ? styles.verifyOk : styles.verifyBroken;
  return (
    <section className={`${styles.verification} ${tone}`} aria-label="Signed checkpoint">
      <p className={styles.verifyText}>
        {checkpoint === "unavailable" ? (
          <strong>The latest signed checkpoint could not be read.</strong>
        ) : checkpoint === null ? (
          <>
            <strong>No signed checkpoint yet.</strong>{" "}
            <span className={styles.verifyMeta}>
              <code>review-console audit checkpoint --key private.pem</code> signs the log&apos;s last entry; keep the
              printed line outside the database.
            </span>
          </>
        ) : (
          <>
            <span className={styles.verifyIcon} aria-hidden="true">
              {checkpoint.held ? "✓ " : "✗ "}
            </span>
            <strong>
              Latest signed checkpoint: entry {seqText(checkpoint.seq)}{" "}
              {checkpoint.held
                ? "is still in the log with the signed hash."
                : BigInt(checkpoint.seq) > BigInt(checkpoint.lastSeq)
                  ? `is gone: the log now ends at entry ${seqText(checkpoint.lastSeq)}.`
                  : "no longer has the signed hash: the log was rewritten."}
            </strong>{" "}
            <span className={styles.verifyMeta}>
              Entry time <Time iso={checkpoint.at} />, signed <Time iso={checkpoint.signedAt} /> with key{" "}
              <code className="rc-mono">{checkpoint.keyId}</code>. The signature is checked by{" "}
              <code>audit verify --checkpoint</code> with your public key.
            </span>
          </>
        )}
      </p>
    </section>
  );
}
