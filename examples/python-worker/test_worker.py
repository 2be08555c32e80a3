"""The worker's own tests, no console needed: python3 -m unittest discover -s examples/python-worker

The HTTP client against a stub server on 127.0.0.1 (retries, refusals), and the effect journal's
decisions. e2e/python-worker.spec.ts runs these and then the worker against a real console.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import List, Tuple

from console_api import ConsoleClient, ConsoleRefusal, ConsoleUnavailable
from journal import EffectJournal, queue_reminder
from replays import ReplayWorker


class StubConsole:
    """Answers each POST with the next (status, body) of `script`, and keeps what it was sent."""

    def __init__(self, script: List[Tuple[int, dict]]):
        self.script = list(script)
        self.requests: List[Tuple[str, dict, str]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the stdlib's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append((self.path, body, self.headers["Authorization"]))
                status, answer = stub.script.pop(0)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def envelope(sequence=1, key="invoice-417:reminder", message_id="msg-417"):
    return {
        "id": message_id,
        "kind": "invoice.reminder",
        "effectKey": key,
        "sequenceKey": "invoice-417",
        "sequence": sequence,
        "payload": {"schema": "2021-03", "invoiceId": "417"},
    }


class ClientTest(unittest.TestCase):
    def client(self, stub: StubConsole, attempts=4) -> ConsoleClient:
        return ConsoleClient(stub.url, "rct_secret", attempts=attempts, base_delay=0.01, max_delay=0.05)

    def test_retries_transient_failures_then_succeeds(self):
        stub = StubConsole([(503, {}), (502, {}), (201, {"id": "r-1", "status": "open", "attempts": 1})])
        self.addCleanup(stub.close)
        answer = self.client(stub).report({"reason": "x"})
        self.assertEqual(answer, {"id": "r-1", "status": "open", "attempts": 1, "created": True})
        self.assertEqual([path for path, _, _ in stub.requests], ["/api/v1/reviews"] * 3)
        self.assertEqual(stub.requests[0][2], "Bearer rct_secret")

    def test_gives_up_after_its_attempts(self):
        stub = StubConsole([(503, {})] * 3)
        self.addCleanup(stub.close)
        with self.assertRaises(ConsoleUnavailable):
            self.client(stub, attempts=3).claim("w", ["invoice.reminder"], 10, 60)
        self.assertEqual(len(stub.requests), 3)

    def test_unreachable_console_is_transient(self):
        stub = StubConsole([])
        stub.close()  # nothing listens there any more
        with self.assertRaisesRegex(ConsoleUnavailable, "failed 2 times, last: cannot reach"):
            self.client(stub, attempts=2).report({})

    def test_a_refusal_is_not_retried_and_names_its_field(self):
        refusal = {
            "error": {
                "code": "invalid-request",
                "message": "reason: Too big",
                "issues": [{"path": "reason", "message": "Too big"}],
            }
        }
        stub = StubConsole([(400, refusal)])
        self.addCleanup(stub.close)
        with self.assertRaises(ConsoleRefusal) as caught:
            self.client(stub).report({"reason": "x" * 300})
        self.assertEqual(len(stub.requests), 1)
        self.assertEqual((caught.exception.status, caught.exception.code), (400, "invalid-request"))
        self.assertEqual(caught.exception.fields, ["reason"])
        self.assertIn("field reason: Too big", caught.exception.describe())


class JournalTest(unittest.TestCase):
    def setUp(self):
        folder = tempfile.mkdtemp()
        self.journal = EffectJournal(os.path.join(folder, "effects.sqlite3"))
        self.addCleanup(self.journal.close)

    def test_applies_once_then_suppresses(self):
        first = self.journal.run(envelope(), "replay-1", queue_reminder)
        again = self.journal.run(envelope(message_id="msg-417-copy"), "replay-2", queue_reminder)
        self.assertEqual(first.outcome, "applied")
        self.assertEqual(again.outcome, "duplicate-suppressed")
        self.assertIn("message msg-417", again.detail)
        self.assertEqual(self.journal.outbox_count("invoice-417:reminder"), 1)

    def test_a_rerun_of_the_replay_that_applied_it_reports_applied(self):
        self.journal.run(envelope(), "replay-1", queue_reminder)
        rerun = self.journal.run(envelope(), "replay-1", queue_reminder)
        self.assertEqual(rerun.outcome, "applied")
        self.assertEqual(self.journal.outbox_count("invoice-417:reminder"), 1)

    def test_holds_a_gap_and_a_stale_message(self):
        gap = self.journal.run(envelope(sequence=3, key="k3"), "replay-3", queue_reminder)
        self.assertEqual((gap.outcome, gap.reason, gap.category), ("routed", "sequence-gap", "sequence-gap"))
        self.assertEqual(gap.required_check, "find messages 1\u20132 of invoice-417")
        self.journal.run(envelope(sequence=1, key="k1"), "replay-1", queue_reminder)
        self.journal.run(envelope(sequence=2, key="k2"), "replay-2", queue_reminder)
        stale = self.journal.run(envelope(sequence=2, key="k2-other"), "replay-4", queue_reminder)
        self.assertEqual((stale.outcome, stale.reason), ("routed", "stale-or-conflicting"))
        self.assertEqual(self.journal.outbox_count("k3") + self.journal.outbox_count("k2-other"), 0)

    def test_a_failing_effect_leaves_nothing_behind(self):
        def broken(connection, env):
            queue_reminder(connection, env)
            raise RuntimeError("provider client misconfigured")

        failed = self.journal.run(envelope(), "replay-1", broken)
        self.assertEqual(failed.outcome, "failed")
        self.assertIn("provider client misconfigured", failed.detail)
        self.assertEqual(self.journal.entries(), [])
        self.assertEqual(self.journal.outbox_count("invoice-417:reminder"), 0)


class ReplayWorkerTest(unittest.TestCase):
    def test_reports_each_outcome_and_drains_with_once(self):
        claimed = {"replayId": "replay-1", "reviewId": "r-1", "category": "manual-review", "envelope": envelope()}
        bad = {
            "replayId": "replay-2",
            "reviewId": "r-2",
            "category": "manual-review",
            "envelope": {**envelope(key="k-bad", message_id="m-bad"), "payload": {"schema": "1999-01"}},
        }
        ok = {"ok": True}
        stub = StubConsole([(200, {"items": [claimed, bad]}), (200, ok), (200, ok), (200, {"items": []})])
        self.addCleanup(stub.close)
        journal = EffectJournal(os.path.join(tempfile.mkdtemp(), "effects.sqlite3"))
        self.addCleanup(journal.close)
        client = ConsoleClient(stub.url, "t", base_delay=0.01)
        worker = ReplayWorker(client, journal, "w-1", lease_seconds=30, stop=threading.Event())
        counts = worker.run(once=True)
        self.assertEqual(counts["applied"], 1)
        self.assertEqual(counts["routed"], 1)
        claim = stub.requests[0][1]
        self.assertEqual(claim, {"consumer": "w-1", "kinds": ["invoice.reminder"], "limit": 10, "leaseSeconds": 30})
        self.assertEqual(stub.requests[1][0], "/api/v1/replays/replay-1/outcome")
        self.assertEqual(stub.requests[1][1]["outcome"], "applied")
        self.assertEqual(stub.requests[2][1]["reason"], "unsupported-schema")


if __name__ == "__main__":
    unittest.main()
