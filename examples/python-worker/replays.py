"""The replay loop: claim due replays with a lease, run each through the effect journal, report
its outcome (docs/api.md, "Replays (consumers)").

A replay that ends without an outcome report (the console unreachable, the worker killed) stays
claimed until its lease runs out and is then handed out again; the journal makes that second run
report the effect instead of doing it again.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any, Dict

from console_api import ConsoleClient, ConsoleRefusal, ConsoleUnavailable
from contract import SUPPORTED_SCHEMAS, envelope_problems, invalid_contract_check, payload_problems
from journal import Decision, EffectJournal, queue_reminder

log = logging.getLogger("python-worker")

EFFECTS = {"invoice.reminder": queue_reminder}
OUTCOMES = ("applied", "duplicate-suppressed", "routed", "failed")


class ReplayWorker:
    def __init__(
        self,
        client: ConsoleClient,
        journal: EffectJournal,
        worker_id: str,
        *,
        lease_seconds: int = 60,
        limit: int = 10,
        poll_seconds: float = 2.0,
        stop: threading.Event,
    ):
        self.client = client
        self.journal = journal
        self.worker_id = worker_id
        self.lease_seconds = lease_seconds
        self.limit = limit
        self.poll_seconds = poll_seconds
        self.stop = stop
        # How each replay ended; `unreported` counts the ones whose outcome the console did not take.
        self.counts: Dict[str, int] = {outcome: 0 for outcome in OUTCOMES}
        self.counts["unreported"] = 0

    def run(self, once: bool) -> Dict[str, int]:
        """Claims and runs replays until stopped; with `once`, until a claim comes back empty.
        A refused claim (a wrong token) raises ConsoleRefusal; so does an unreachable console
        with `once`, as ConsoleUnavailable (a loop keeps trying)."""
        while not self.stop.is_set():
            try:
                items = self.client.claim(self.worker_id, list(SUPPORTED_SCHEMAS), self.limit, self.lease_seconds)
            except ConsoleUnavailable as error:
                if once or self.stop.is_set():
                    raise
                log.error("claiming replays: %s; trying again in %.0f s", error, self.poll_seconds)
                self.stop.wait(self.poll_seconds)
                continue
            if not items:
                if once:
                    break
                self.stop.wait(self.poll_seconds)
                continue
            log.info("claimed %d replay(s) for %d s", len(items), self.lease_seconds)
            for index, item in enumerate(items):
                if self.stop.is_set():
                    log.info(
                        "stopping: %d claimed replay(s) not run; they are handed out again when their lease ends",
                        len(items) - index,
                    )
                    break
                self.handle(item)
        return self.counts

    def handle(self, item: Dict[str, Any]) -> None:
        replay_id = item["replayId"]
        try:
            decision = self.decide(item)
        except Exception:  # noqa: BLE001 - one replay's trouble must not end the loop
            log.exception("replay %s: the journal failed; the replay stays claimed until its lease ends", replay_id)
            self.counts["unreported"] += 1
            return
        try:
            self.client.report_outcome(replay_id, decision.as_report())
        except ConsoleRefusal as refusal:
            # 403 not-claim-holder / 409 not-claimed: the lease ran out and the replay is someone
            # else's now, or an earlier try of this very report got through but its answer was lost.
            log.warning("replay %s (%s) not reported:\n%s", replay_id, decision.outcome, refusal.describe())
            self.counts["unreported"] += 1
            return
        except ConsoleUnavailable as error:
            log.error(
                "replay %s (%s) not reported: %s; its lease hands it out again", replay_id, decision.outcome, error
            )
            self.counts["unreported"] += 1
            return
        self.counts[decision.outcome] += 1
        log.info("replay %s of record %s: %s (%s)", replay_id, item.get("reviewId"), decision.outcome, decision.detail)
        if decision.outcome == "routed":
            self.recategorize(item, decision)

    def decide(self, item: Dict[str, Any]) -> Decision:
        envelope = item.get("envelope")
        problems = envelope_problems(envelope)
        if problems:
            detail = "; ".join(f"{field or 'message'} {problem}" for field, problem in problems)
            return Decision(
                "routed",
                detail,
                reason="invalid-contract",
                required_check=invalid_contract_check(envelope if isinstance(envelope, dict) else {}, problems),
                category="manual-review",
            )
        unfit = payload_problems(envelope)
        if unfit is not None:
            reason, check, detail = unfit
            return Decision("routed", detail, reason=reason, required_check=check, category="manual-review")
        return self.journal.run(envelope, item["replayId"], EFFECTS[envelope["kind"]])

    def recategorize(self, item: Dict[str, Any], decision: Decision) -> None:
        """The outcome API keeps the record's category; a held-again replay whose reason belongs to
        another (a gap) reports the record's own message with it, which joins the now open record."""
        if decision.category is None or decision.category == item.get("category") or "message" not in item:
            return
        record = {
            "category": decision.category,
            "reason": decision.reason,
            "requiredCheck": decision.required_check,
            "attempts": 1,
            "lastError": decision.detail,
            "source": {
                "transport": "replay",
                "queue": "review-console",
                "consumer": self.worker_id,
                "transportId": item["replayId"],
            },
            "message": item["message"],
        }
        try:
            self.client.report(record)
        except (ConsoleRefusal, ConsoleUnavailable) as error:
            log.error("record %s keeps category %s: %s", item.get("reviewId"), item.get("category"), error)


def summary(counts: Dict[str, int]) -> str:
    return json.dumps(counts, sort_keys=False)
