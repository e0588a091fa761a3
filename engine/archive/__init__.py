"""Retention: closed streams leave the hot log for signed, anchored segment files.

``rule`` decides which streams are closed (pure); ``segment`` and ``manifest`` are the file
formats; ``run`` is an archival run; ``reader`` reads archived streams back; ``verify`` checks
segments against their manifests and anchors.
"""

from .reader import SegmentArchive
from .rule import (
    DeliveryFacts,
    RetentionPolicy,
    Verdict,
    delivery_verdict,
    event_verdict,
    stream_verdict,
)
from .run import CRASH_POINTS, Archiver, ArchiveRun

__all__ = [
    "CRASH_POINTS",
    "ArchiveRun",
    "Archiver",
    "DeliveryFacts",
    "RetentionPolicy",
    "SegmentArchive",
    "Verdict",
    "delivery_verdict",
    "event_verdict",
    "stream_verdict",
]
