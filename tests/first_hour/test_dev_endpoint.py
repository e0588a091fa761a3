"""``hookproof dev-endpoint``: the files a local receiver needs, kept across runs, and the
engine settings that reach it (the allowance added to those already set)."""

from __future__ import annotations

import json
import ssl
from pathlib import Path

from hookproof.config import Settings
from hookproof.engine.cli.dev_endpoint import make_dev_endpoint
from hookproof_subscriber import SigningKey

from ..daemon import run_cli


def _handshake(client: ssl.SSLContext, server: ssl.SSLContext, name: str) -> None:
    """A whole TLS handshake in memory (no socket)."""
    c_in, c_out, s_in, s_out = (ssl.MemoryBIO() for _ in range(4))
    c = client.wrap_bio(c_in, c_out, server_hostname=name)
    s = server.wrap_bio(s_in, s_out, server_side=True)
    done = {"c": False, "s": False}
    for _ in range(20):
        for key, end in (("c", c), ("s", s)):
            if not done[key]:
                try:
                    end.do_handshake()
                    done[key] = True
                except ssl.SSLWantReadError:
                    pass
        s_in.write(c_out.read())
        c_in.write(s_out.read())
        if all(done.values()):
            return
    raise AssertionError("the handshake did not finish")


def test_files_and_settings(tmp_path: Path) -> None:
    dev = make_dev_endpoint(tmp_path / "dev", 9555, current_allow="10.0.0.1:443")
    assert dev.created and dev.egress_allow == "10.0.0.1:443,127.0.0.1:9555"
    # what the engine reads from those settings: exactly that pair, and the CA
    env = {"HOOKPROOF_EGRESS_ALLOW": dev.egress_allow, "HOOKPROOF_EGRESS_CA_FILE": str(dev.ca_file)}
    settings = Settings.from_env(env)
    assert ("127.0.0.1", 9555) in settings.egress_allow
    # the receiver's certificate is signed by that CA, for 127.0.0.1
    client = ssl.create_default_context(cafile=settings.egress_ca_file)
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(dev.folder / "cert.pem", dev.folder / "key.pem")
    _handshake(client, server, "127.0.0.1")  # raises unless the chain and name verify
    # the receipt key: its public half is the subscription's receiptKey body
    body = json.loads((dev.folder / "receipt-key.json").read_text())
    key = SigningKey.ed25519_from_pem(body["keyId"], (dev.folder / "receipt-key.pem").read_bytes())
    assert key.key_id == body["keyId"] and body["publicKeyJwk"]["crv"] == "Ed25519"
    # a second run keeps the files (the engine's CA setting stays valid)
    before = (dev.folder / "ca.pem").read_bytes()
    again = make_dev_endpoint(tmp_path / "dev", 9555, current_allow=dev.egress_allow)
    assert not again.created and (dev.folder / "ca.pem").read_bytes() == before
    assert again.egress_allow == dev.egress_allow


def test_the_command_prints_only_exports_on_stdout(tmp_path: Path) -> None:
    done = run_cli(["dev-endpoint", "--port", "9556", "--dir", str(tmp_path / "d")], {})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "export HOOKPROOF_EGRESS_ALLOW=127.0.0.1:9556",
        f"export HOOKPROOF_EGRESS_CA_FILE={tmp_path / 'd' / 'ca.pem'}",
    ]
    assert "https://127.0.0.1:9556/hooks" in done.stderr
