"""Is this address allowed? The one pure address policy, shared by vetting and drift.

:class:`AddressPolicy` judges a resolution (``vet``: refuse the host if ANY answer is denied;
exact ``(address, port)`` allowances exempt that pair alone) and compares a vetted answer set
with the set pinned at the challenge (``drift``), reusing the vetting's verdicts rather than
classifying the addresses again. :func:`address_set` is the one normalisation of address
text. No I/O: tested without sockets.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .addresses import IPAddress, classify, format_ip
from .failures import FailureCode

__all__ = ["AddressDrift", "AddressPolicy", "Vetting", "address_set"]


def address_set(addresses: Iterable[str | IPAddress]) -> frozenset[str]:
    """Canonical text of each address (text that is not an address is kept as given)."""
    out: set[str] = set()
    for a in addresses:
        if isinstance(a, str):
            try:
                out.add(format_ip(ipaddress.ip_address(a)))
            except ValueError:
                out.add(a)
        else:
            out.add(format_ip(a))
    return frozenset(out)


@functools.lru_cache(maxsize=4096)
def _address_set_of(addresses: tuple[str | IPAddress, ...]) -> frozenset[str]:
    return address_set(addresses)


@dataclass(frozen=True, slots=True)
class AddressDrift:
    """The resolved address set compared with a pinned one (from the passed challenge)."""

    expected: frozenset[str]
    observed: frozenset[str]
    denied: Mapping[str, str] = field(default_factory=dict)

    @property
    def added(self) -> frozenset[str]:
        return self.observed - self.expected

    @property
    def removed(self) -> frozenset[str]:
        return self.expected - self.observed

    @property
    def changed(self) -> bool:
        return self.observed != self.expected or bool(self.denied)


@dataclass(frozen=True, slots=True)
class Vetting:
    """The verdict on one answer set for one port.

    ``refusal`` is ``None`` when every address may be connected to; ``denied`` holds the
    ``(address, reason)`` pairs that made it refuse; ``allowances`` the addresses admitted
    only through an exact allowance.
    """

    addresses: tuple[IPAddress, ...]
    port: int
    refusal: FailureCode | None = None
    detail: str = ""
    denied: tuple[tuple[str, str], ...] = ()
    allowances: tuple[IPAddress, ...] = ()

    @property
    def vetted(self) -> frozenset[tuple[IPAddress, int]]:
        """The exact ``(address, port)`` pairs a connection may go to (empty when refused)."""
        if self.refusal is not None:
            return frozenset()
        return frozenset((a, self.port) for a in self.addresses)


@dataclass(frozen=True, slots=True)
class AddressPolicy:
    """Denied ranges (:func:`classify`), the port allow-list and exact pair allowances."""

    allowed_ports: frozenset[int]
    allow_pairs: frozenset[tuple[IPAddress, int]] = frozenset()

    @classmethod
    def build(
        cls, allowed_ports: Iterable[int], allow_pairs: Iterable[tuple[str, int]] = ()
    ) -> AddressPolicy:
        return cls(
            frozenset(int(p) for p in allowed_ports),
            frozenset((ipaddress.ip_address(a), int(p)) for a, p in allow_pairs),
        )

    def vet(self, addresses: Sequence[IPAddress], port: int) -> Vetting:
        """Refuse if ANY address is denied (or the port is not allowed for a public one)."""
        denied: list[tuple[str, str]] = []
        bad_port = False
        allowances: list[IPAddress] = []
        for addr in addresses:
            if (addr, port) in self.allow_pairs:
                allowances.append(addr)
                continue
            reason = classify(addr)
            if reason is not None:
                denied.append((format_ip(addr), reason))
            elif port not in self.allowed_ports:
                bad_port = True
        answers = tuple(addresses)
        if denied:
            detail = "denied address: " + ", ".join(f"{a} ({r})" for a, r in denied)
            return Vetting(answers, port, FailureCode.REFUSED_ADDRESS, detail, tuple(denied))
        if bad_port:
            return Vetting(answers, port, FailureCode.REFUSED_PORT, f"port {port} not allowed")
        return Vetting(answers, port, allowances=tuple(allowances))

    def drift(self, pinned: Iterable[str], vetting: Vetting) -> AddressDrift:
        """Compare the vetted answers with the pinned set (the vetting's denials carried)."""
        pinned = pinned if isinstance(pinned, tuple) else tuple(pinned)
        return AddressDrift(
            expected=_address_set_of(pinned),
            observed=_address_set_of(vetting.addresses),
            denied=dict(vetting.denied),
        )
