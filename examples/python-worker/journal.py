"""The worker's effect journal, in SQLite, and the decision it makes before any effect.

The effect here is local: a row in the `reminder_outbox` table of the same SQLite database (a
sender would deliver it later, passing `effectKey` to the provider as its idempotency key). So the
journal entry, the effect and the sequence advance commit in one transaction, exactly once
(docs/contract.md, "Applying an effect"). A replay of an effect already in the journal is
suppressed, never done again.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Dict, List, Optional

from contract import gap_check, stale_check

SCHEMA = """
CREATE TABLE IF NOT EXISTS effect_journal (
  effect_key   TEXT PRIMARY KEY,
  message_id   TEXT NOT NULL,
  sequence_key TEXT NOT NULL,
  sequence     INTEGER NOT NULL,
  -- The replay that applied it: a second run of that same replay (its outcome report was lost)
  -- reports `applied`, any other run of the effect `duplicate-suppressed`.
  replay_id    TEXT,
  applied_at   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sequence_state (
  sequence_key TEXT PRIMARY KEY,
  last_applied INTEGER NOT NULL
);
-- The effect itself. No unique key on purpose: the journal is what keeps it from happening twice.
CREATE TABLE IF NOT EXISTS reminder_outbox (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  effect_key TEXT NOT NULL,
  invoice_id TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS reminder_outbox_effect_key ON reminder_outbox (effect_key);
"""

Effect = Callable[[sqlite3.Connection, Dict[str, Any]], str]
"""Does the effect inside the journal's transaction; answers a short description of what it did."""


@dataclass
class Decision:
    """What running a replay came to, in the outcome API's words."""

    outcome: str  # applied | duplicate-suppressed | routed | failed
    detail: str
    reason: Optional[str] = None  # routed: the new reason and check of the record
    required_check: Optional[str] = None
    category: Optional[str] = None  # routed: the record's category for that reason

    def as_report(self) -> Dict[str, Any]:
        report: Dict[str, Any] = {"outcome": self.outcome, "detail": self.detail}
        if self.reason is not None:
            report["reason"] = self.reason
        if self.required_check is not None:
            report["requiredCheck"] = self.required_check
        return report


def queue_reminder(connection: sqlite3.Connection, envelope: Dict[str, Any]) -> str:
    """The `invoice.reminder` effect: one reminder in the outbox."""
    connection.execute(
        "INSERT INTO reminder_outbox (effect_key, invoice_id, created_at) VALUES (?, ?, ?)",
        (envelope["effectKey"], envelope["payload"]["invoiceId"], _now()),
    )
    return f"reminder for invoice {envelope['payload']['invoiceId']} queued"


class EffectJournal:
    def __init__(self, path: str):
        # isolation_level=None: this class opens and ends its transactions itself.
        self.connection = sqlite3.connect(path, timeout=30, isolation_level=None)
        self.connection.row_factory = sqlite3.Row
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.executescript(SCHEMA)

    def close(self) -> None:
        self.connection.close()

    def run(self, envelope: Dict[str, Any], replay_id: str, effect: Effect) -> Decision:
        """Decides on a contract-valid envelope (docs/contract.md, "The decision, before any
        effect", rules 3-6) and, when it may, does the effect and journals it. BEGIN IMMEDIATE
        takes SQLite's write lock before the journal is read, so two workers sharing the file
        cannot both find the effect missing and both do it."""
        key, sequence_key, sequence = envelope["effectKey"], envelope["sequenceKey"], envelope["sequence"]
        db = self.connection
        db.execute("BEGIN IMMEDIATE")
        try:
            entry = db.execute("SELECT * FROM effect_journal WHERE effect_key = ?", (key,)).fetchone()
            state = db.execute("SELECT last_applied FROM sequence_state WHERE sequence_key = ?", (sequence_key,))
            row = state.fetchone()
            last = row["last_applied"] if row else 0
            decision = _decide(entry, last, envelope, replay_id)
            if decision is None:
                done = effect(db, envelope)
                db.execute(
                    "INSERT INTO effect_journal (effect_key, message_id, sequence_key, sequence, replay_id, applied_at)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (key, envelope["id"], sequence_key, sequence, replay_id, _now()),
                )
                db.execute(
                    "INSERT INTO sequence_state (sequence_key, last_applied) VALUES (?, ?)"
                    " ON CONFLICT (sequence_key) DO UPDATE SET last_applied = excluded.last_applied",
                    (sequence_key, sequence),
                )
                decision = Decision("applied", f"applied: {done} (effect {key})")
            db.execute("COMMIT")
            return decision
        except Exception as error:  # noqa: BLE001 - the handler's error becomes the outcome
            db.execute("ROLLBACK")
            if isinstance(error, sqlite3.Error) and not isinstance(error, sqlite3.IntegrityError):
                raise  # The journal itself failed: nothing is known, the lease will hand it out again.
            return Decision("failed", f"handler-error: {type(error).__name__}: {error}")

    def entries(self, effect_key: Optional[str] = None) -> List[Dict[str, Any]]:
        """The journal with how many times each effect happened (the outbox rows of its key)."""
        query = (
            "SELECT j.*, (SELECT count(*) FROM reminder_outbox o WHERE o.effect_key = j.effect_key) AS effects"
            " FROM effect_journal j"
        )
        rows = (
            self.connection.execute(query + " WHERE j.effect_key = ?", (effect_key,))
            if effect_key is not None
            else self.connection.execute(query + " ORDER BY j.applied_at")
        )
        return [dict(row) for row in rows]

    def outbox_count(self, effect_key: str) -> int:
        row = self.connection.execute("SELECT count(*) AS n FROM reminder_outbox WHERE effect_key = ?", (effect_key,))
        return int(row.fetchone()["n"])


def _decide(entry: Optional[sqlite3.Row], last: int, envelope: Dict[str, Any], replay_id: str) -> Optional[Decision]:
    """None: apply it. Otherwise why not, in the contract's words. An effect already in the
    journal is suppressed before its sequence is compared: the journal and the sequence commit
    together here, so the contract's order (rule 3, then 4, then 5) gives the same answer unless a
    producer reused an effectKey under another sequence, and then doing nothing is the safe side."""
    key, sequence_key, sequence = envelope["effectKey"], envelope["sequenceKey"], envelope["sequence"]
    if entry is not None and entry["replay_id"] == replay_id:
        return Decision("applied", f"applied by an earlier run of this replay at {entry['applied_at']} (effect {key})")
    if entry is not None:
        return Decision(
            "duplicate-suppressed",
            f"suppressed: effect {key} was applied at {entry['applied_at']} (message {entry['message_id']})",
        )
    if sequence <= last:
        # Never applied, and applying it now would move the object back.
        return Decision(
            "routed",
            f"sequence {sequence} of {sequence_key} is at or below the applied sequence {last}",
            reason="stale-or-conflicting",
            required_check=stale_check(sequence, sequence_key, last),
            category="manual-review",
        )
    if sequence > last + 1:
        return Decision(
            "routed",
            f"sequence {sequence} of {sequence_key} waits for {last + 1}",
            reason="sequence-gap",
            required_check=gap_check(last + 1, sequence - 1, sequence_key),
            category="sequence-gap",
        )
    return None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")
