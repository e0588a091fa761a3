"""The one registry of destination kinds (DESIGN.md section 15): every kind, built in or not,
registers through the ``hookproof.destinations`` entry-point group; the entry resolves to a
:class:`~.kind.KindSpec`. The engine reads kinds only here: the subscription API (an unknown
``type`` is ``unknown_destination_type`` listing :attr:`KindRegistry.names`), the dispatcher
(:meth:`KindRegistry.signs_own_form`), the request view, the composition root
(:meth:`KindRegistry.build`) and ``hookproof destinations list``."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Iterator, Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Final

from .context import KindContext, Target
from .kind import KindSpec
from .port import Destination, Evidence, SignedMessage

__all__ = [
    "GROUP",
    "DestinationsByKind",
    "KindLoadError",
    "KindRegistry",
    "installed",
    "load",
    "reported_as",
    "reported_by",
    "room_key",
]

#: the entry-point group every kind registers in
GROUP: Final = "hookproof.destinations"


class KindLoadError(Exception):
    """An entry of :data:`GROUP` that is no usable kind (``code``: stable reason)."""

    def __init__(self, detail: str, *, code: str) -> None:
        super().__init__(detail)
        self.code = code


class KindRegistry:
    """The installed kinds by name, and how an attempt's endpoint finds its kind."""

    __slots__ = ("_by_name", "_by_scheme", "_default", "_recognisers")

    def __init__(self, kinds: Iterable[KindSpec]) -> None:
        by_name: dict[str, KindSpec] = {}
        for kind in kinds:
            if kind.name in by_name:
                raise KindLoadError(f"kind {kind.name!r} registered twice", code="kind_duplicate")
            by_name[kind.name] = kind
        defaults = [k for k in by_name.values() if k.default]
        if len(defaults) != 1:
            raise KindLoadError("exactly one kind must be the default", code="kind_default")
        self._by_name = by_name
        self._default = defaults[0]
        self._recognisers = tuple(k for k in by_name.values() if k.recognise is not None)
        self._by_scheme: dict[str, KindSpec] = {}
        for kind in by_name.values():
            for scheme in kind.schemes:
                if self._by_scheme.setdefault(scheme.lower(), kind) is not kind:
                    raise KindLoadError(f"scheme {scheme!r} claimed twice", code="kind_scheme")

    @property
    def names(self) -> tuple[str, ...]:
        """The installed kinds' names, sorted."""
        return tuple(sorted(self._by_name))

    @property
    def default(self) -> KindSpec:
        return self._default

    def __iter__(self) -> Iterator[KindSpec]:
        return (self._by_name[name] for name in self.names)

    def get(self, name: str) -> KindSpec | None:
        return self._by_name.get(name)

    def kind_of(self, endpoint: str) -> KindSpec:
        """The kind of an attempt by the endpoint its delivery was planned for (a kind's
        own test first, then the scheme; otherwise the default, which refuses what it
        cannot carry)."""
        for kind in self._recognisers:
            if kind.recognises(endpoint):
                return kind
        scheme = endpoint.partition(":")[0].lower()
        return self._by_scheme.get(scheme, self._default)

    def signs_own_form(self, endpoint: str) -> bool:
        """Whether the attempt's kind signs its own form (no HTTP signature is added)."""
        return self.kind_of(endpoint).signs_own_form

    def build(self, context: KindContext) -> DestinationsByKind:
        """One adapter per kind that can be built in *context*, behind one port."""
        adapters: dict[str, Destination] = {}
        for kind in self._by_name.values():
            adapter = kind.build(context)
            if adapter is not None:
                adapters[kind.name] = adapter
        default = adapters.get(self._default.name)
        if default is None:
            raise KindLoadError("the default kind built no adapter", code="kind_default")
        return DestinationsByKind(self, adapters, default)


class DestinationsByKind:
    """A :class:`~.port.Destination` that hands each attempt to its kind's adapter. A kind
    without one goes to ``default``, which refuses what it cannot carry (the HTTPS egress:
    ``egress_refused_scheme``)."""

    __slots__ = ("_by_kind", "default", "registry")

    def __init__(
        self, registry: KindRegistry, by_kind: Mapping[str, Destination], default: Destination
    ) -> None:
        self.registry = registry
        self._by_kind = dict(by_kind)
        self.default = default

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(self._by_kind)

    def adapter(self, name: str) -> Destination | None:
        return self._by_kind.get(name)

    async def deliver(self, message: SignedMessage, target: Target) -> Evidence:
        kind = self.registry.kind_of(target.endpoint)
        destination = self._by_kind.get(kind.name, self.default)
        return await destination.deliver(message, target)


def _resolve(entry: EntryPoint) -> KindSpec:
    try:
        found = entry.load()
    except Exception as exc:  # a broken plugin names itself, it does not stop the engine
        raise KindLoadError(
            f"destination kind {entry.name!r} failed to load: {type(exc).__name__}",
            code="kind_import_failed",
        ) from exc
    if not isinstance(found, KindSpec):
        raise KindLoadError(f"{entry.value} is not a KindSpec", code="kind_not_a_spec")
    if found.name != entry.name:
        raise KindLoadError(
            f"entry {entry.name!r} names kind {found.name!r}", code="kind_name_mismatch"
        )
    return found


def load(entries: Iterable[EntryPoint] | None = None) -> KindRegistry:
    """The registry of *entries* (default: the installed ``hookproof.destinations`` group)."""
    found = entry_points(group=GROUP) if entries is None else entries
    return KindRegistry(_resolve(e) for e in found)


@functools.cache
def installed() -> KindRegistry:
    """The kinds installed with this interpreter (read once per process)."""
    return load()


def room_key(subscription_id: str, endpoint: str, endpoint_digest: str) -> str:
    """The key a planned delivery's concurrency room and circuit breaker go by (the ledger's
    ``endpoint_digest``): the endpoint's digest (one room per real peer, whoever sends to it),
    but the subscription's own for a kind with ``own_rooms`` (issue 46: one tenant's failing
    local receiver never holds another's deliveries)."""
    kind = installed().kind_of(endpoint)
    if not kind.own_rooms:
        return endpoint_digest
    return hashlib.sha256(f"{kind.name}\x00{subscription_id}".encode()).hexdigest()


def reported_as(endpoint: str) -> str | None:
    """The label an acceptance of an attempt to *endpoint* reads when its kind's answers are
    reported by a peer (``RELAY_REPORTED``); None when the engine saw the answer itself."""
    return installed().kind_of(endpoint).reported_as


def reported_by(peer_address: str | None) -> str | None:
    """The same label for an attempt's ``peer_address`` (``<kind>:<who reported>``)."""
    if peer_address is None or ":" not in peer_address:
        return None
    kind = installed().get(peer_address.partition(":")[0])
    return None if kind is None else kind.reported_as
