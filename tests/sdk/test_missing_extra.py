"""The Python subscriber SDK installed without its ``[aiohttp]`` extra (issue 48 item 4): the
verification core works, and what needs the HTTP client says so by name
(``MissingExtraError``, naming ``hookproof-subscriber[aiohttp]``) instead of every message
being refused as ``unknown_key``.

The install is built for real: a folder holding exactly the SDK and the dependency closure its
metadata declares without extras (links to the installed files), run by this interpreter in a
clean subprocess (``-I -S``: no site-packages, no environment), so ``aiohttp`` is absent."""

from __future__ import annotations

import importlib.metadata as md
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import hookproof_subscriber

SDK = Path(hookproof_subscriber.__file__).resolve().parent


def _closure(name: str, seen: set[str] | None = None) -> set[str]:
    """The distributions *name* needs without any extra (markers evaluated here)."""
    seen = set() if seen is None else seen
    for text in md.distribution(name).requires or []:
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        dep = canonicalize_name(req.name)
        if dep not in seen:
            seen.add(dep)
            _closure(dep, seen)
    return seen


def _top_level(dist: md.Distribution) -> set[Path]:
    """The installed top-level modules and packages of *dist* (absolute paths)."""
    out: set[Path] = set()
    for file in dist.files or []:
        first = file.parts[0]
        if first.endswith((".dist-info", ".egg-info")) or first in ("__pycache__", ".."):
            continue
        if len(file.parts) == 1 and not first.endswith((".py", ".so", ".pyd")):
            continue
        out.add(Path(str(dist.locate_file(first))).resolve())
    return out


def _install_without_extra(into: Path) -> None:
    deps = _closure("hookproof-subscriber")
    assert "aiohttp" not in deps and "cryptography" in deps
    (into / "hookproof_subscriber").symlink_to(SDK, target_is_directory=True)
    for name in deps:
        for path in _top_level(md.distribution(name)):
            link = into / path.name
            if not link.exists():
                link.symlink_to(path, target_is_directory=path.is_dir())


SCRIPT = textwrap.dedent(
    """
    import asyncio, importlib.util, json, sys
    sys.path.insert(0, sys.argv[1])
    out = {"aiohttp": importlib.util.find_spec("aiohttp") is not None}
    import hookproof_subscriber as hs

    def named(call):
        try:
            call()
        except hs.MissingExtraError as exc:
            return {"type": type(exc).__name__, "import_error": isinstance(exc, ImportError),
                    "message": str(exc)}
        return None

    out["jwks"] = named(lambda: hs.JwksKeyResolver.for_engine("http://127.0.0.1:9"))
    key = hs.SigningKey.generate_ed25519("rk1")
    receipt = hs.build_receipt(subscription_id="s", event_id="e", delivery_id="d",
                               payload_digest="sha-256=:" + "A" * 43 + "=:")
    out["receipt"] = named(lambda: asyncio.run(
        hs.send_receipt(receipt, url="http://127.0.0.1:9/v1/receipts", key=key)))
    # the verification core needs no extra: a signed broker message verifies
    dest = hs.nats_destination_uri("tls", "n.example.com", 4222, "a.b")
    body = json.dumps({"type": "t", "eventId": "e1", "aggregateId": "a",
                       "aggregateVersion": 1, "payload": {}}).encode()
    headers = {"content-type": "application/json", "hookproof-event-id": "e1",
               "hookproof-delivery-id": "d1", "hookproof-subscription-id": "s1",
               "hookproof-generation": "1"}
    headers.update(hs.sign_message(headers, body, dest, key=key))
    keys = hs.StaticKeyResolver([key.verification_key()])
    got = asyncio.run(hs.verify_broker_message(headers, body, dest, keys=keys))
    out["verified"] = got.event.delivery_id
    print(json.dumps(out))
    """
)


def test_without_the_aiohttp_extra_the_error_names_the_extra(tmp_path: Path) -> None:
    _install_without_extra(tmp_path)
    run = subprocess.run(
        [sys.executable, "-I", "-S", "-c", SCRIPT, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["aiohttp"] is False  # the install really lacks it
    for what in ("jwks", "receipt"):
        err = out[what]
        assert err is not None, f"{what}: no named error"
        assert err["type"] == "MissingExtraError" and err["import_error"]
        assert "hookproof-subscriber[aiohttp]" in err["message"]
    assert "JwksKeyResolver" in out["jwks"]["message"]
    assert "send_receipt" in out["receipt"]["message"]
    assert out["verified"] == "d1"
