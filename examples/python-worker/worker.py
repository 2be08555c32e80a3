#!/usr/bin/env python3
"""A Review Console worker in Python, standard library only (python3 >= 3.9).

    worker.py report --id ID --effect-key K --sequence-key S --sequence N --payload JSON --reason R
    worker.py replay [--once]
    worker.py journal [--effect-key K]

Configuration by environment: REVIEW_CONSOLE_URL, REVIEW_CONSOLE_TOKEN (a token with the consumer
role), REVIEW_WORKER_ID, REVIEW_WORKER_JOURNAL; see README.md. Exit codes: 0 done, 1 the console
could not be reached, 2 a usage or configuration error, 3 the console refused the request.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import socket
import sys
import threading
from typing import Any, Dict, List, Optional

from console_api import ConsoleClient, ConsoleRefusal, ConsoleUnavailable
from contract import envelope_problems, held_check
from journal import EffectJournal
from replays import ReplayWorker, summary

log = logging.getLogger("python-worker")

CATEGORIES = ("manual-review", "sequence-gap", "effect-result-unknown")
EXIT_UNREACHABLE, EXIT_USAGE, EXIT_REFUSED = 1, 2, 3


class UsageError(Exception):
    """A flag or a setting is wrong; the message says which and what it should be."""


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    if value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise UsageError(f"{name} must be a whole number, not {value!r}") from None


def console_client(stop: threading.Event) -> ConsoleClient:
    url = os.environ.get("REVIEW_CONSOLE_URL", "").strip()
    token = os.environ.get("REVIEW_CONSOLE_TOKEN", "").strip()
    if not url.startswith(("http://", "https://")):
        raise UsageError("set REVIEW_CONSOLE_URL to the console's address, e.g. http://127.0.0.1:3000")
    if not token:
        raise UsageError(
            "set REVIEW_CONSOLE_TOKEN to a token with the consumer role "
            "(npx review-console token add --name python-worker --role consumer)"
        )
    return ConsoleClient(
        url,
        token,
        timeout=env_int("REVIEW_HTTP_TIMEOUT_SECONDS", 30),
        attempts=env_int("REVIEW_HTTP_ATTEMPTS", 5),
        stop=stop,
    )


def worker_id() -> str:
    return os.environ.get("REVIEW_WORKER_ID", "").strip() or f"python-worker@{socket.gethostname()}"


def journal_path() -> str:
    return os.environ.get("REVIEW_WORKER_JOURNAL", "").strip() or "effects.sqlite3"


# report


def build_record(args: argparse.Namespace) -> Dict[str, Any]:
    """The report of one message this worker could not process: a contract-valid envelope (its
    keys are what the console files and searches it by) and what a person must do next."""
    try:
        payload = json.loads(args.payload)
    except ValueError as error:
        raise UsageError(f"--payload must be a JSON object: {error}") from None
    envelope = {
        "id": args.id,
        "kind": args.kind,
        "effectKey": args.effect_key,
        "sequenceKey": args.sequence_key,
        "sequence": args.sequence,
        "payload": payload,
    }
    problems = envelope_problems(envelope)
    if problems:
        flags = {"sequenceKey": "--sequence-key", "effectKey": "--effect-key", "payload.schema": "--payload"}
        named = "; ".join(f"{flags.get(field, '--' + field)} ({field}) {problem}" for field, problem in problems)
        raise UsageError(f"not a contract-valid envelope: {named}")
    source = {"transport": args.transport, "consumer": worker_id()}
    if args.queue:
        source["queue"] = args.queue
    if args.transport_id:
        source["transportId"] = args.transport_id
    record: Dict[str, Any] = {
        "category": args.category,
        "reason": args.reason,
        "requiredCheck": args.required_check or held_check(args.reason, envelope),
        "attempts": args.attempts,
        "source": source,
        "message": envelope,
    }
    if args.last_error:
        record["lastError"] = args.last_error
    return record


def command_report(args: argparse.Namespace, stop: threading.Event) -> int:
    record = build_record(args)
    answer = console_client(stop).report(record)
    how = "created" if answer["created"] else f"joined the open record of message {args.id}"
    log.info("record %s %s (status %s, attempts %s)", answer["id"], how, answer.get("status"), answer.get("attempts"))
    print(answer["id"])
    return 0


# replay


def command_replay(args: argparse.Namespace, stop: threading.Event) -> int:
    client = console_client(stop)
    journal = EffectJournal(journal_path())
    worker = ReplayWorker(
        client,
        journal,
        worker_id(),
        lease_seconds=args.lease_seconds,
        limit=args.limit,
        poll_seconds=args.poll_seconds,
        stop=stop,
    )
    log.info(
        "replaying as %s, journal %s%s", worker_id(), journal_path(), " (until nothing is due)" if args.once else ""
    )
    try:
        counts = worker.run(once=args.once)
    finally:
        journal.close()
    print(summary(counts))
    return 0


# journal


def command_journal(args: argparse.Namespace, _stop: threading.Event) -> int:
    journal = EffectJournal(journal_path())
    try:
        for entry in journal.entries(args.effect_key):
            print(json.dumps(entry))
    finally:
        journal.close()
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="worker.py", description="A Review Console worker in Python (standard library only)."
    )
    commands = top.add_subparsers(dest="command", required=True)

    report = commands.add_parser("report", help="report a message this worker could not process; prints the record id")
    report.add_argument("--id", required=True, help="the message id")
    report.add_argument("--kind", default="invoice.reminder", help="default: invoice.reminder")
    report.add_argument("--effect-key", required=True, help="the idempotency key of the effect")
    report.add_argument("--sequence-key", required=True, help="the scope of the ordering")
    report.add_argument("--sequence", required=True, type=int, help="the message's number within --sequence-key")
    report.add_argument("--payload", required=True, help='JSON, e.g. \'{"schema": "2021-03", "invoiceId": "417"}\'')
    report.add_argument("--category", choices=CATEGORIES, default="manual-review")
    report.add_argument("--reason", required=True, help="why it could not be processed, e.g. retry-limit")
    report.add_argument("--required-check", help="what a person must do next (default: from the reason)")
    report.add_argument("--last-error", help="the last error seen")
    report.add_argument("--attempts", type=int, default=1, help="how often it was tried (default 1)")
    report.add_argument("--transport", default="python-worker", help="where it came from (default python-worker)")
    report.add_argument("--queue", help="the queue or stream it came from")
    report.add_argument("--transport-id", help="the transport's own id of the delivery")
    report.set_defaults(run=command_report)

    replay = commands.add_parser("replay", help="claim scheduled replays, run them, report their outcomes")
    replay.add_argument("--once", action="store_true", help="stop when no replay is due (for CI and cron)")
    replay.add_argument(
        "--lease-seconds",
        type=int,
        default=None,
        help="how long a claim holds (5-3600; default REVIEW_WORKER_LEASE_SECONDS or 60)",
    )
    replay.add_argument("--limit", type=int, default=10, help="replays claimed at once (1-100, default 10)")
    replay.add_argument("--poll-seconds", type=float, default=2.0, help="pause when none is due (default 2)")
    replay.set_defaults(run=command_replay)

    journal = commands.add_parser("journal", help="print the effect journal, one JSON line per effect")
    journal.add_argument("--effect-key", help="only this effect")
    journal.set_defaults(run=command_journal)
    return top


def main(argv: Optional[List[str]] = None) -> int:
    logging.basicConfig(
        stream=sys.stderr,
        level=os.environ.get("REVIEW_WORKER_LOG_LEVEL", "INFO").upper(),
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    args = parser().parse_args(argv)
    stop = threading.Event()

    def request_stop(signum: int, _frame: Any) -> None:
        if not stop.is_set():
            log.info("%s: stopping after the current replay", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    try:
        if args.command == "replay" and args.lease_seconds is None:
            args.lease_seconds = env_int("REVIEW_WORKER_LEASE_SECONDS", 60)
        return args.run(args, stop)
    except UsageError as error:
        print(f"worker.py {args.command}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except ConsoleRefusal as refusal:
        print(f"worker.py {args.command}: {refusal.describe()}", file=sys.stderr)
        return EXIT_REFUSED
    except ConsoleUnavailable as error:
        print(f"worker.py {args.command}: {error}", file=sys.stderr)
        return EXIT_UNREACHABLE


if __name__ == "__main__":
    sys.exit(main())
