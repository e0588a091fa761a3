"""Segment manifests: what a segment holds, signed with the engine key (ed25519).

On disk beside the segment as ``<segment>.manifest.json``:
``{"manifest": {...}, "digest": "<sha-256 hex of the canonical manifest bytes>",
"signature": {"alg": "ed25519", "keyId": "...", "value": "<base64url>"}}``.
The anchor event carries the same digest.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from hookproof.events import RecordedEvent

from .segment import MANIFEST_FORMAT, SEGMENT_FORMAT, SegmentFile, manifest_digest

__all__ = [
    "build_manifest",
    "manifest_path",
    "read_manifest",
    "signature_valid",
    "write_manifest",
]


def manifest_path(segment: Path) -> Path:
    return segment.with_name(segment.name + ".manifest.json")


def build_manifest(
    segment_id: str,
    file_name: str,
    written: SegmentFile,
    streams: Sequence[Sequence[RecordedEvent]],
    cutoff: datetime,
    created_at: datetime,
) -> dict[str, Any]:
    entries = []
    for s in streams:
        m = written.members[s[0].stream_id]
        entries.append(
            {
                "streamId": s[0].stream_id,
                "events": len(s),
                "finalVersion": s[-1].stream_version,
                "finalHash": s[-1].hash.hex(),
                "firstPosition": min(e.global_position for e in s),
                "lastPosition": max(e.global_position for e in s),
                "lastRecordedAt": max(e.recorded_at for e in s).isoformat(),
                "member": [m.offset, m.length],
            }
        )
    return {
        "format": MANIFEST_FORMAT,
        "segmentFormat": SEGMENT_FORMAT,
        "segmentId": segment_id,
        "file": file_name,
        "fileSha256": written.sha256,
        "fileSize": written.size,
        "cutoff": cutoff.isoformat(),
        "createdAt": created_at.isoformat(),
        "streamCount": len(entries),
        "eventCount": sum(e["events"] for e in entries),
        "streams": entries,
    }


def write_manifest(path: Path, manifest: dict[str, Any], key: Any) -> str:
    """Sign and write atomically; returns the digest. ``key``: an ed25519 SigningKey."""
    raw, digest = manifest_digest(manifest)
    signature = key.private_key.sign(raw)
    doc = {
        "manifest": manifest,
        "digest": digest,
        "signature": {
            "alg": "ed25519",
            "keyId": key.key_id,
            "value": base64.urlsafe_b64encode(signature).rstrip(b"=").decode("ascii"),
        },
    }
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as f:
        f.write(msgspec.json.encode(doc))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return digest


def read_manifest(path: Path) -> dict[str, Any]:
    doc = msgspec.json.decode(path.read_bytes())
    if not isinstance(doc, dict) or not isinstance(doc.get("manifest"), dict):
        raise ValueError("not a segment manifest")
    return doc


def signature_valid(doc: dict[str, Any], public_key_b64url: str | None) -> bool:
    """The manifest's signature verifies under the given ed25519 public key."""
    if not public_key_b64url:
        return False
    try:
        raw, _ = manifest_digest(doc["manifest"])
        sig = doc["signature"]["value"]
        public = base64.urlsafe_b64decode(public_key_b64url + "=" * (-len(public_key_b64url) % 4))
        Ed25519PublicKey.from_public_bytes(public).verify(
            base64.urlsafe_b64decode(sig + "=" * (-len(sig) % 4)), raw
        )
    except (InvalidSignature, KeyError, TypeError, ValueError):
        return False
    return True
