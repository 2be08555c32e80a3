"""The console's HTTP API for a consumer (docs/api.md): report a record, claim replays, report
their outcomes. urllib only. Transient failures (no connection, a timeout, 429, 5xx) are retried
with exponential backoff and jitter; a 4xx is the console's answer and is never retried.
"""

from __future__ import annotations

import http.client
import json
import logging
import random
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional

log = logging.getLogger("python-worker")

# Statuses that say "not now" rather than "no": a proxy or the console restarting, or a limit.
TRANSIENT_STATUSES = {429, 500, 502, 503, 504}


class ConsoleRefusal(Exception):
    """A 4xx: the console refused the request and changed nothing. Its `{"error": {...}}` body
    names the field at fault in `issues`; retrying the same request would be refused again."""

    def __init__(self, method: str, path: str, status: int, body: str):
        self.method = method
        self.path = path
        self.status = status
        self.code = "http-error"
        self.message = body.strip()[:500] or f"answered {status}"
        self.issues: List[Dict[str, str]] = []
        try:
            error = json.loads(body).get("error") or {}
        except (ValueError, AttributeError):
            error = {}  # Not JSON (a proxy's page): the status and the text say enough.
        if isinstance(error, dict):
            self.code = str(error.get("code") or self.code)
            self.message = str(error.get("message") or self.message)
            self.issues = [i for i in error.get("issues") or [] if isinstance(i, dict)]
        super().__init__(self.describe())

    @property
    def fields(self) -> List[str]:
        """The fields the refusal names, e.g. ["message.sequence"]."""
        return [str(issue.get("path") or "(body)") for issue in self.issues]

    def describe(self) -> str:
        lines = [f"{self.method} {self.path} was refused: {self.status} {self.code}: {self.message}"]
        for issue in self.issues:
            lines.append(f"  field {issue.get('path') or '(body)'}: {issue.get('message')}")
        if self.status == 401:
            lines.append("  check REVIEW_CONSOLE_TOKEN: the console does not know this token (revoked or expired?)")
        elif self.status == 403 and self.code != "not-claim-holder":
            lines.append("  check REVIEW_CONSOLE_TOKEN: this worker needs a token with the consumer role")
        return "\n".join(lines)


class ConsoleUnavailable(Exception):
    """The console could not be reached (or kept failing) after every retry, or the worker was
    told to stop while it waited to retry. What the request would have done is unknown."""


class ConsoleClient:
    def __init__(
        self,
        url: str,
        token: str,
        *,
        timeout: float = 30.0,
        attempts: int = 5,
        base_delay: float = 0.5,
        max_delay: float = 10.0,
        stop: Optional[threading.Event] = None,
    ):
        self.base = url.rstrip("/")
        self._token = token
        self.timeout = timeout
        self.attempts = max(1, attempts)
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.stop = stop or threading.Event()

    # The three calls a consumer makes.

    def report(self, record: Dict[str, Any]) -> Dict[str, Any]:
        """POST /api/v1/reviews: {id, status, attempts, created} (created: 201, not joined to an
        open record of the same message)."""
        status, answer = self._post("/api/v1/reviews", record)
        return {**answer, "created": status == 201}

    def claim(self, consumer: str, kinds: List[str], limit: int, lease_seconds: int) -> List[Dict[str, Any]]:
        """POST /api/v1/replays/claim: the replays now held by this worker until the lease ends."""
        body = {"consumer": consumer, "kinds": kinds, "limit": limit, "leaseSeconds": lease_seconds}
        _, answer = self._post("/api/v1/replays/claim", body)
        return list(answer.get("items") or [])

    def report_outcome(self, replay_id: str, outcome: Dict[str, Any]) -> Dict[str, Any]:
        """POST /api/v1/replays/{id}/outcome. Not interrupted by a stop: the effect is done (or
        not) already, and the console should hear it before the worker exits."""
        path = f"/api/v1/replays/{urllib.parse.quote(replay_id, safe='')}/outcome"
        _, answer = self._post(path, outcome, interruptible=False)
        return answer

    # The transport.

    def _post(self, path: str, body: Dict[str, Any], *, interruptible: bool = True):
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        for attempt in range(1, self.attempts + 1):
            try:
                return self._send("POST", path, data)
            except ConsoleRefusal:
                raise
            except _Transient as failure:
                if attempt == self.attempts:
                    raise ConsoleUnavailable(
                        f"POST {path} failed {attempt} times, last: {failure.what}"
                    ) from None
                delay = self._delay(attempt, failure.retry_after)
                log.warning("POST %s: %s; retrying in %.1f s (attempt %d of %d)", path, failure.what, delay,
                            attempt + 1, self.attempts)
                if interruptible:
                    if self.stop.wait(delay):
                        raise ConsoleUnavailable(f"POST {path}: stopped while waiting to retry ({failure.what})")
                else:
                    time.sleep(delay)
        raise AssertionError("unreachable")

    def _delay(self, attempt: int, retry_after: Optional[float]) -> float:
        # Full jitter keeps many workers that failed together from retrying together.
        ceiling = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        delay = random.uniform(ceiling / 2, ceiling)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.max_delay))
        return delay

    def _send(self, method: str, path: str, data: bytes):
        request = urllib.request.Request(
            f"{self.base}{path}",
            data=data,
            method=method,
            headers={
                "Authorization": f"Bearer {self._token}",
                "Content-Type": "application/json",
                "Accept": "application/json",
                "User-Agent": "review-console-python-worker/1",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                status, text = response.status, response.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            text = error.read().decode("utf-8", errors="replace")
            if error.code in TRANSIENT_STATUSES:
                raise _Transient(f"{error.code} {text.strip()[:200]}", _retry_after(error.headers.get("Retry-After")))
            raise ConsoleRefusal(method, path, error.code, text) from None
        except urllib.error.URLError as error:
            raise _Transient(f"cannot reach {self.base}: {error.reason}") from None
        except (ConnectionError, socket.timeout, TimeoutError, http.client.HTTPException) as error:
            # A reset or a timeout after the request went out: it may have been done. Every call
            # here is safe to repeat (a report joins the open record of its message, a lost claim
            # runs out with its lease, a repeated outcome is refused as not-claimed).
            raise _Transient(f"{type(error).__name__}: {error}") from None
        try:
            return status, json.loads(text) if text else {}
        except ValueError:
            # Something between here and the console answered in its stead (a login page?).
            raise ConsoleUnavailable(f"{method} {path} answered {status} with no JSON: {text[:200]!r}") from None


class _Transient(Exception):
    def __init__(self, what: str, retry_after: Optional[float] = None):
        super().__init__(what)
        self.what = what
        self.retry_after = retry_after


def _retry_after(value: Optional[str]) -> Optional[float]:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None  # An HTTP date: the backoff decides.
