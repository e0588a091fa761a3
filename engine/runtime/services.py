"""The engine's parts, each under its own typed name, built once by the composition root.

:func:`~.composition.build_engine` builds every part and hands each one the parts it needs;
everything else reads ``engine.services.<part>``. Nothing is set on it afterwards (assigning
raises). A part a role leaves out is ``None`` in its typed field (``archiver``: retention
unset, or not the scheduler). To add a part: declare it here, build it in the composition root.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..archive import Archiver
    from ..challenge import Challenger
    from ..challenge.drift import DriftGuard
    from ..delivery.dispatcher import Dispatcher
    from ..delivery.recover import Recovery
    from ..delivery.views import DeliveryReader
    from ..destinations.port import Destination
    from ..egress import EgressTransport
    from ..event_types.service import EventTypeService
    from ..ingest.ingest import IngestService
    from ..keys import KeyRing
    from ..notifications import Notifier
    from ..observe.metrics import EngineMetrics
    from ..receipts.redeliver import ReceiptRedeliverer
    from ..receipts.service import ReceiptService
    from ..rollouts.service import RolloutService
    from ..rotation.service import Rotation

__all__ = ["Services"]


@dataclass(frozen=True, slots=True, eq=False)
class Services:
    keyring: KeyRing
    transport: EgressTransport
    challenger: Challenger
    drift_guard: DriftGuard
    ingest: IngestService
    event_types: EventTypeService
    reader: DeliveryReader
    #: where the dispatcher's attempts go (by destination kind, traced)
    destination: Destination
    dispatcher: Dispatcher
    metrics: EngineMetrics
    notifier: Notifier
    recovery: Recovery
    rotation: Rotation
    rollouts: RolloutService
    receipts: ReceiptService
    receipt_redeliverer: ReceiptRedeliverer
    #: retention's archiver: with ``retention_days`` set, in the scheduler's process only
    archiver: Archiver | None = None

    @classmethod
    def names(cls) -> frozenset[str]:
        return frozenset(f.name for f in fields(cls))
