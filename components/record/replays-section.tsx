import { Section } from "@/components/ui/section";
import { StateBadge, Time } from "./badges";
import styles from "./record.module.css";
import type { ReviewReplay } from "./types";

/** Every replay scheduled for this record and how it ended; newest first. */
export function ReplaysSection({ replays }: { replays: ReviewReplay[] }) {
  const newestFirst = [...replays].reverse();
  return (
    <Section title={`Replays (${replays.length})`} layout="flow">
      {replays.length === 0 ? (
        <p className="rc-muted">No replay has been scheduled.</p>
      ) : (
        <ol className={styles.plainList}>
          {newestFirst.map((replay) => (
            <li key={replay.id} className={styles.replay}>
              <div className={styles.timelineHead}>
                <StateBadge state={replay.state} />{" "}
                <span>
                  revision {replay.revisionNumber === 0 ? "0 (as received)" : replay.revisionNumber}, due{" "}
                  <Time iso={replay.runAt} />
                </span>
              </div>
              <dl className={styles.kvCompact}>
                <div>
                  <dt>Scheduled by</dt>
                  <dd>
                    {replay.createdBy} · <Time iso={replay.createdAt} />
                  </dd>
                </div>
                {replay.claimedBy ? (
                  <div>
                    <dt>Claimed by</dt>
                    <dd>
                      {replay.claimedBy}
                      {replay.claimExpiresAt ? (
                        <>
                          {" "}
                          · lease until <Time iso={replay.claimExpiresAt} />
                        </>
                      ) : null}
                    </dd>
                  </div>
                ) : null}
                {replay.completedAt ? (
                  <div>
                    <dt>Completed</dt>
                    <dd>
                      <Time iso={replay.completedAt} />
                    </dd>
                  </div>
                ) : null}
                {replay.detail ? (
                  <div>
                    <dt>Outcome detail</dt>
                    <dd>{replay.detail}</dd>
                  </div>
                ) : null}
              </dl>
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}
