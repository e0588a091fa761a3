"""``hookproof listen``: bring an engine's deliveries to a receiver on this machine.

``hookproof listen --to http://localhost:3000/webhooks [--topics a,b] [--engine URL]
[--token T] [--answer-challenge] [--json]`` (``--engine``: ``HOOKPROOF_URL``, else ``http://127.0.0.1:8080``;
``--token``: ``HOOKPROOF_TOKEN``, a tenant or portal token). See
:mod:`hookproof.engine.relay.client`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hookproof.config import Settings
from hookproof.errors import ValidationError

__all__ = ["register"]


def _receipt_key(args: argparse.Namespace) -> dict[str, Any] | None:
    if args.receipt_key_jwk is None:
        return None
    if not args.receipt_key_id:
        raise ValidationError(
            "--receipt-key-jwk needs --receipt-key-id", field="receipt-key-id", code="listen_args"
        )
    try:
        jwk = json.loads(Path(args.receipt_key_jwk).read_text())
    except (OSError, ValueError) as exc:
        raise ValidationError(
            f"--receipt-key-jwk: cannot read a JSON JWK ({type(exc).__name__})",
            field="receipt-key-jwk",
            code="listen_args",
        ) from None
    return {"keyId": args.receipt_key_id, "publicKeyJwk": jwk}


async def cmd_listen(args: argparse.Namespace, settings: Settings) -> int:
    from ..destinations.relay.endpoint import normalise_relay_endpoint
    from ..relay.client import DEFAULT_ENGINE, ListenOptions, listen, parse_topics

    normalise_relay_endpoint(args.to)  # refused before anything is asked of the engine
    token = args.token or settings.client_token
    if not token:
        raise ValidationError(
            "a token is needed: --token or HOOKPROOF_TOKEN (a tenant or portal token)",
            field="token",
            code="listen_args",
        )
    engine = args.engine or settings.client_url or DEFAULT_ENGINE
    opts = ListenOptions(
        to=args.to,
        topics=parse_topics(args.topics),
        engine=engine,
        token=token,
        json=args.json,
        receipt_key=_receipt_key(args),
        answer_challenge=args.answer_challenge,
    )
    return await listen(opts, out=lambda line: print(line, flush=True))


def register(
    sub: argparse._SubParsersAction,  # type: ignore[type-arg]
    add_json: Callable[[argparse.ArgumentParser], None],
) -> None:
    p = sub.add_parser(
        "listen",
        help="relay an engine's deliveries to a local receiver (development)",
        description=(
            "Create or reuse a relay subscription, hold its relay open and POST each delivery"
            " (headers and body byte for byte) to a local http:// loopback URL, reporting the"
            " status back. Ends on SIGINT or SIGTERM."
        ),
    )
    p.add_argument("--to", required=True, help="local receiver URL (http:// on loopback)")
    p.add_argument("--topics", default=None, help="comma-separated topics (default: all)")
    p.add_argument(
        "--engine", default=None, help="engine URL (default: HOOKPROOF_URL or 127.0.0.1:8080)"
    )
    p.add_argument("--token", default=None, help="tenant or portal token (HOOKPROOF_TOKEN)")
    p.add_argument("--receipt-key-id", default=None, help="receipt key id for a new subscription")
    p.add_argument(
        "--receipt-key-jwk",
        default=None,
        help="file with the receipt key's public Ed25519 JWK (the challenge proof)",
    )
    p.add_argument(
        "--answer-challenge",
        action="store_true",
        help="answer the engine's challenge from this CLI, for a local receiver that cannot"
        " (the evidence records that the CLI answered; not possible with a receipt key or"
        " shared secret the CLI does not hold); by default the receiver answers it",
    )
    add_json(p)
    p.set_defaults(handler=cmd_listen)
