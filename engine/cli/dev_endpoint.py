"""``hookproof dev-endpoint``: what a local HTTPS receiver needs to be challenged and
delivered to by an engine on the same machine.

It writes, into one directory (default ``<data dir>/dev``): a development CA (``ca.pem``), a
certificate for ``127.0.0.1`` and ``localhost`` signed by it (``cert.pem``, ``key.pem``) for
the receiver, and an Ed25519 receipt key (``receipt-key.pem`` for the receiver,
``receipt-key.json``: the subscription's ``receiptKey`` body). Files already there are kept
(``--force`` makes new ones), so the engine's CA setting stays valid across runs.

On stdout it prints only the engine's settings, as ``export`` lines (``eval "$(hookproof
dev-endpoint)"``): ``HOOKPROOF_EGRESS_ALLOW`` with exactly ``127.0.0.1:<port>`` added (an
allowance pair bypasses the deny list of private addresses and the port list, for that one
address and port) and ``HOOKPROOF_EGRESS_CA_FILE`` naming the CA. Everything else goes to
stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookproof.config import Settings, parse_addr_port_list
from hookproof.errors import ValidationError

from .help import add_command

__all__ = ["DevEndpoint", "cmd_dev_endpoint", "make_dev_endpoint", "register"]

RECEIPT_KEY_ID = "rk_dev"


@dataclass(frozen=True)
class DevEndpoint:
    """The files of a local receiver and the engine settings that reach it."""

    folder: Path
    port: int
    egress_allow: str
    created: bool

    @property
    def ca_file(self) -> Path:
        return self.folder / "ca.pem"

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}/hooks"

    def exports(self) -> list[str]:
        return [
            f"export HOOKPROOF_EGRESS_ALLOW={shlex.quote(self.egress_allow)}",
            f"export HOOKPROOF_EGRESS_CA_FILE={shlex.quote(str(self.ca_file))}",
        ]


def _allow_with(current: str | None, port: int) -> str:
    """``HOOKPROOF_EGRESS_ALLOW`` with ``127.0.0.1:port`` added (the pairs already set kept)."""
    pairs = list(parse_addr_port_list(current, name="HOOKPROOF_EGRESS_ALLOW"))
    if ("127.0.0.1", port) not in pairs:
        pairs.append(("127.0.0.1", port))
    return ",".join(f"[{a}]:{p}" if ":" in a else f"{a}:{p}" for a, p in pairs)


def _write(path: Path, data: bytes, *, private: bool = False) -> None:
    path.write_bytes(data)
    if private:
        os.chmod(path, 0o600)


def make_dev_endpoint(
    folder: Path, port: int, *, current_allow: str | None, force: bool = False
) -> DevEndpoint:
    """Write (or keep) the receiver's files in ``folder``; the settings that reach it."""
    if not 0 < port < 65536:
        raise ValidationError(f"--port {port}: not a port", field="--port")
    folder = folder.resolve()
    names = ("ca.pem", "cert.pem", "key.pem", "receipt-key.pem", "receipt-key.json")
    created = force or not all((folder / n).is_file() for n in names)
    if created:
        import trustme
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        from hookproof_subscriber import SigningKey, public_jwk

        folder.mkdir(parents=True, exist_ok=True)
        ca = trustme.CA(organization_name="hookproof dev-endpoint")
        leaf = ca.issue_cert("127.0.0.1", "localhost")
        _write(folder / "ca.pem", ca.cert_pem.bytes())
        _write(folder / "cert.pem", b"".join(blob.bytes() for blob in leaf.cert_chain_pems))
        _write(folder / "key.pem", leaf.private_key_pem.bytes(), private=True)
        private = Ed25519PrivateKey.generate()
        pem = private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        _write(folder / "receipt-key.pem", pem, private=True)
        jwk: dict[str, Any] = dict(public_jwk(SigningKey.ed25519(RECEIPT_KEY_ID, private)))
        body = {"keyId": RECEIPT_KEY_ID, "publicKeyJwk": jwk}
        _write(folder / "receipt-key.json", json.dumps(body).encode() + b"\n")
    return DevEndpoint(folder, port, _allow_with(current_allow, port), created)


def cmd_dev_endpoint(args: argparse.Namespace, settings: Settings) -> int:
    folder = Path(args.dir) if args.dir else settings.data_dir / "dev"
    dev = make_dev_endpoint(
        folder,
        args.port,
        current_allow=settings.env.get("HOOKPROOF_EGRESS_ALLOW"),
        force=args.force,
    )

    def say(line: str) -> None:
        if not args.json:
            print(line, file=sys.stderr)

    say(f"{'wrote' if dev.created else 'kept'} the receiver's files in {dev.folder}:")
    say("  cert.pem, key.pem       its TLS certificate for 127.0.0.1 and localhost")
    say("  ca.pem                  the CA that signed it (for the engine)")
    say("  receipt-key.pem         its receipt key (it signs challenge proofs and receipts)")
    say('  receipt-key.json        the subscription\'s "receiptKey" (the public half)')
    say(f"the receiver's URL: {dev.url} (serve it on 127.0.0.1:{dev.port})")
    say('set these where hookproof serve runs (stdout: eval "$(hookproof dev-endpoint ...)"):')
    if args.json:
        print(
            json.dumps(
                {
                    "dir": str(dev.folder),
                    "url": dev.url,
                    "HOOKPROOF_EGRESS_ALLOW": dev.egress_allow,
                    "HOOKPROOF_EGRESS_CA_FILE": str(dev.ca_file),
                }
            )
        )
    else:
        for line in dev.exports():
            print(line)
    return 0


def register(sub: Any) -> None:
    p = add_command(
        sub,
        "dev-endpoint",
        help="make a local HTTPS receiver's certificate and receipt key; print the engine's"
        " settings that reach it",
        description="Writes what a local HTTPS receiver needs into one directory: a development"
        " CA (ca.pem), a certificate for 127.0.0.1 and localhost (cert.pem, key.pem) and an"
        " Ed25519 receipt key (receipt-key.pem; receipt-key.json is the subscription's"
        " receiptKey). Files already there are kept. Prints, as export lines on stdout, the"
        " engine settings that reach the receiver: HOOKPROOF_EGRESS_ALLOW with"
        " 127.0.0.1:PORT added and HOOKPROOF_EGRESS_CA_FILE. Use:"
        ' eval "$(hookproof dev-endpoint --port 9443)".',
    )
    p.add_argument(
        "--port",
        type=int,
        default=9443,
        help="the port the receiver listens on, on 127.0.0.1 (default 9443)",
    )
    p.add_argument(
        "--dir",
        default=None,
        help="where to keep the files (default: HOOKPROOF_DATA_DIR/dev, i.e. .hookproof/dev)",
    )
    p.add_argument("--force", action="store_true", help="make new files even if some exist")
    p.add_argument("--json", action="store_true", help="print the settings as one JSON object")
    p.set_defaults(handler=cmd_dev_endpoint)
