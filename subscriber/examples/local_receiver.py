"""A local HTTPS receiver on the subscriber SDK, for the README's quick start: it answers the
engine's challenge (with a proof under its receipt key), verifies every delivery against the
engine's JWKS, applies each event once, and sends a signed receipt, so the engine records
APPLICATION_CONFIRMED.

    hookproof dev-endpoint --port 9443            # once: certificate and receipt key
    python subscriber/examples/local_receiver.py --port 9443

Its files come from ``hookproof dev-endpoint`` (``--dir``, default ``.hookproof/dev``); it
serves ``https://127.0.0.1:<port>/hooks``, the URL to register. Each applied event is one line
on stdout: ``applied <eventId> <topic> <payload>``.
"""

from __future__ import annotations

import argparse
import json
import os
import ssl
from pathlib import Path
from typing import Any

from aiohttp import web

from hookproof_subscriber import JwksKeyResolver, SigningKey, Subscriber, aiohttp_handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=9443, help="on 127.0.0.1 (default 9443)")
    parser.add_argument(
        "--dir",
        default=os.path.join(os.environ.get("HOOKPROOF_DATA_DIR", ".hookproof"), "dev"),
        help="the files of hookproof dev-endpoint (default .hookproof/dev)",
    )
    parser.add_argument(
        "--engine",
        default=os.environ.get("HOOKPROOF_URL", "http://127.0.0.1:8080"),
        help="the engine's base URL (HOOKPROOF_URL; default http://127.0.0.1:8080)",
    )
    args = parser.parse_args()
    folder = Path(args.dir)
    key_id = json.loads((folder / "receipt-key.json").read_text())["keyId"]
    receipt_key = SigningKey.ed25519_from_pem(key_id, (folder / "receipt-key.pem").read_bytes())
    engine = args.engine.rstrip("/")

    async def on_event(event: Any) -> None:  # once per event id, in aggregate order
        print("applied", event.event_id, event.type, json.dumps(event.payload), flush=True)

    url = f"https://127.0.0.1:{args.port}/hooks"
    receiver = Subscriber(
        keys=JwksKeyResolver.for_engine(engine),
        on_event=on_event,
        endpoint=url,  # the signed @target-uri: the URL registered with the engine
        receipt_key=receipt_key,
        receipts_url=f"{engine}/v1/receipts",
    )
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    app = web.Application()
    app.router.add_post("/hooks", aiohttp_handler(receiver))
    print(f"receiver on {url} (engine {engine})", flush=True)
    web.run_app(app, host="127.0.0.1", port=args.port, ssl_context=tls, print=None)


if __name__ == "__main__":
    main()
