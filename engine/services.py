"""The engine's parts, each under its own typed name (the composition root fills them in).

``build_engine`` and ``features.install`` are the one place that builds the parts and hands
each feature the ports it needs; everything else reads ``engine.services.<part>``. A part that
is not installed (a role that is off, retention unset) is simply absent: reading it raises
:class:`AttributeError` naming it. To add a part: declare it here, assign it where it is built.

``services["name"]`` / ``.get`` / ``.update`` still work for code written against the old
dictionary, but only for the names declared here.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .archive import Archiver
    from .challenge import Challenger
    from .challenge.drift import DriftGuard
    from .delivery.dispatcher import Dispatcher
    from .delivery.ingest import IngestService
    from .delivery.recover import Recovery
    from .delivery.views import DeliveryReader
    from .egress import EgressTransport
    from .event_types.service import EventTypeService
    from .keys import KeyRing
    from .metrics import EngineMetrics
    from .notifications import Notifier
    from .receipts.redeliver import ReceiptRedeliverer
    from .receipts.service import ReceiptService
    from .rollouts.service import RolloutService
    from .rotation import Rotation

__all__ = ["Services"]


@dataclass(init=False, eq=False, repr=False)
class Services:
    keyring: KeyRing
    transport: EgressTransport
    challenger: Challenger
    drift_guard: DriftGuard
    ingest: IngestService
    event_types: EventTypeService
    reader: DeliveryReader
    dispatcher: Dispatcher
    metrics: EngineMetrics
    notifier: Notifier
    recovery: Recovery
    rotation: Rotation
    rollouts: RolloutService
    receipts: ReceiptService
    receipt_redeliverer: ReceiptRedeliverer
    archiver: Archiver

    @classmethod
    def names(cls) -> frozenset[str]:
        return frozenset(f.name for f in fields(cls))

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self.names():
            raise AttributeError(f"{name!r} is not a declared part (engine/services.py)")
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:  # only called when the part is absent
        if name in self.names():
            raise AttributeError(f"{name!r} is not installed in this engine")
        raise AttributeError(f"{name!r} is not a declared part (engine/services.py)")

    def installed(self) -> frozenset[str]:
        return frozenset(vars(self))

    # -- the old dictionary's interface -----------------------------------------------------

    def __getitem__(self, name: str) -> Any:
        try:
            return getattr(self, name)
        except AttributeError as exc:
            raise KeyError(name) from exc

    def __setitem__(self, name: str, value: Any) -> None:
        setattr(self, name, value)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in vars(self)

    def get(self, name: str, default: Any = None) -> Any:
        return vars(self).get(name, default)

    def update(self, **parts: Any) -> None:
        for name, value in parts.items():
            setattr(self, name, value)
