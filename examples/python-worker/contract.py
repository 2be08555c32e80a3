"""The parts of the message contract (docs/contract.md) this worker needs. No I/O here.

The console's own code for the same rules is packages/contract (TypeScript); this is a port of
the few checks a worker must make before it touches an effect, in the same words, so a record
this worker reports reads like one the TypeScript consumer reports.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

# The kinds this worker handles and the payload schema versions it supports for each. A replay of
# another kind is never claimed (the claim names these kinds).
SUPPORTED_SCHEMAS: Dict[str, Tuple[str, ...]] = {"invoice.reminder": ("2021-03",)}

# The largest integer a JavaScript reader of the envelope compares exactly: a sequence above it
# cannot order anything (the console refuses it too).
MAX_SEQUENCE = 2**53 - 1

KEY_FIELDS = ("id", "kind", "effectKey", "sequenceKey")

Problem = Tuple[str, str]
"""A field of the envelope and what is wrong with it, e.g. ("sequence", "must be an integer >= 1")."""


def envelope_problems(message: Any) -> List[Problem]:
    """What keeps `message` from being a contract-valid envelope; empty when it is one."""
    if not isinstance(message, dict):
        return [("", "must be a JSON object")]
    problems: List[Problem] = []
    for field in KEY_FIELDS:
        value = message.get(field)
        if not isinstance(value, str) or value == "":
            problems.append((field, "must be a non-empty string"))
    sequence = message.get("sequence")
    # bool is an int in Python; `true` is no sequence number.
    if isinstance(sequence, bool) or not isinstance(sequence, int) or not 1 <= sequence <= MAX_SEQUENCE:
        problems.append(("sequence", "must be an integer >= 1"))
    payload = message.get("payload")
    if not isinstance(payload, dict) or not isinstance(payload.get("schema"), str) or payload["schema"] == "":
        problems.append(("payload.schema", "must be an object with a schema version"))
    return problems


def payload_problems(envelope: Dict[str, Any]) -> Optional[Tuple[str, str, str]]:
    """(reason, requiredCheck, detail) when the kind or payload does not fit, else None."""
    kind = envelope["kind"]
    version = envelope["payload"]["schema"]
    supported = SUPPORTED_SCHEMAS.get(kind)
    if supported is None:
        handled = ", ".join(SUPPORTED_SCHEMAS)
        return (
            "unsupported-schema",
            f"check which handler serves kind {kind} of message {envelope['id']}: this consumer handles {handled}",
            f"unknown kind {kind}",
        )
    if version not in supported:
        return (
            "unsupported-schema",
            f"check payload schema {version} of kind {kind}: supported versions are {', '.join(supported)}",
            f"unsupported payload schema {version}",
        )
    invoice_id = envelope["payload"].get("invoiceId")
    if not isinstance(invoice_id, str) or invoice_id == "":
        return (
            "invalid-payload",
            f"correct invoiceId of message {envelope['id']} ({kind} schema {version})",
            "payload.invoiceId must be a non-empty string",
        )
    return None


def invalid_contract_check(message: Any, problems: List[Problem]) -> str:
    fields = [field for field, _ in problems]
    if "" in fields:
        return (
            "supply an envelope object with id, kind, effectKey, sequenceKey, sequence and payload: "
            "the message is not an object"
        )
    message_id = message.get("id") if isinstance(message.get("id"), str) and message.get("id") else None
    label = f"message {message_id}" if message_id else "the message without an id"
    return f"supply {', '.join(fields)} in the envelope of {label}"


def stale_check(sequence: int, sequence_key: str, last: int) -> str:
    return f"compare sequence {sequence} of {sequence_key} with the applied sequence {last}"


def gap_check(first: int, last: int, sequence_key: str) -> str:
    if first == last:
        return f"find message {first} of {sequence_key}"
    return f"find messages {first}\u2013{last} of {sequence_key}"


def held_check(reason: str, envelope: Dict[str, Any]) -> str:
    """The check of a record this worker reports for a reason of its own (the glossary's wording)."""
    return (
        f"resolve {reason} for {envelope['kind']} {envelope['effectKey']} (message {envelope['id']}), "
        "then replay or cancel it"
    )
