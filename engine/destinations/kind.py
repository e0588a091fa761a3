"""What a destination kind declares (DESIGN.md section 15): a :class:`KindSpec`, the value its
``hookproof.destinations`` entry point resolves to. Pure: the engine reads the spec to
validate a subscription's ``destination``, to tell an attempt's kind by its endpoint, to know
who signs the message and to build the adapter (:attr:`KindSpec.build`, given a
:class:`~.context.KindContext`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from .context import KindContext
from .port import Destination

__all__ = ["FIELD_TYPES", "FieldSpec", "KindSpec"]

#: the JSON types a field of a ``destination`` object may have
FIELD_TYPES: Final = frozenset({"string", "integer", "boolean", "object"})


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One member of a subscription's ``destination`` object. ``secret``: write-only
    (accepted, sealed, never echoed: the view shows a keyed digest); ``bound``: a change of it
    is a new generation, challenged again."""

    name: str
    type: Literal["string", "integer", "boolean", "object"] = "string"
    required: bool = True
    secret: bool = False
    bound: bool = True
    description: str = ""


@dataclass(frozen=True, slots=True)
class KindSpec:
    """A destination kind as it registers.

    - ``name``: the ``destination.type`` value (and the entry point's name);
    - ``fields``: the ``destination`` object's members besides ``type``;
    - ``evidence``: the kinds of evidence its attempts record (``http_response``, ...);
    - ``signs_own_form``: the kind signs its own message form (``"@destination"``, DESIGN.md
      13) with the signers the admission recorded, so the dispatcher adds no HTTP signature;
    - ``schemes``: the endpoint schemes of its deliveries (a delivery's endpoint is the
      destination's URI); ``recognise``: a finer test, asked before any scheme;
    - ``default``: the kind of a subscription without ``destination`` (one kind: HTTPS);
    - ``reported_as``: a kind whose answers a peer reports (the engine did not see them
      itself): the label its acceptance reads instead of ``ENDPOINT_ACCEPTED``; its attempts'
      ``peer_address`` is ``<name>:<who reported>``;
    - ``own_rooms``: each subscription is its own concurrency room and breaker, not the
      endpoint's (every relay's receiver is ``http://localhost:...``);
    - ``build``: the adapter factory; None when the engine lacks a part it needs;
    - ``endpoint``: the URI of a subscription's deliveries (the attempt's ``endpoint``, the
      signed ``@target-uri``) from its ``destination`` members as checked, secrets left out
      (:mod:`.fields`); None: the ``url`` member itself.
    """

    name: str
    summary: str
    build: Callable[[KindContext], Destination | None]
    fields: tuple[FieldSpec, ...] = ()
    evidence: tuple[str, ...] = ()
    signs_own_form: bool = False
    schemes: frozenset[str] = frozenset()
    recognise: Callable[[str], bool] | None = None
    default: bool = False
    reported_as: str | None = None
    own_rooms: bool = False
    endpoint: Callable[[Mapping[str, Any]], str] | None = None

    def recognises(self, endpoint: str) -> bool:
        """Whether an attempt to *endpoint* is this kind's (by :attr:`recognise` only)."""
        return self.recognise is not None and self.recognise(endpoint)

    @property
    def secrets(self) -> tuple[str, ...]:
        """The write-only members."""
        return tuple(f.name for f in self.fields if f.secret)
