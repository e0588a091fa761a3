"""An installed kind's write-only ``destination`` members (:attr:`.kind.FieldSpec.secret`),
opened for its adapter only: sealed at registration as one document with the broker
credentials' store (``subscriptions.service``), referenced by the bound config's
``credentials_id``. Never logged, never in evidence."""

from __future__ import annotations

import json
from typing import Any, Protocol

from .context import SubscriptionStates, Target

__all__ = ["CredentialsOpener", "SealedMembers"]


class CredentialsOpener(Protocol):
    """Opens sealed credentials by id (``brokers.credentials.DestinationCredentials``)."""

    async def open(self, credentials_id: str) -> Any: ...


class SealedMembers:
    """The write-only members of an attempt's subscription's destination."""

    __slots__ = ("_credentials", "_subscriptions")

    def __init__(self, subscriptions: SubscriptionStates, credentials: CredentialsOpener) -> None:
        self._subscriptions = subscriptions
        self._credentials = credentials

    def __repr__(self) -> str:
        return "SealedMembers(<sealed>)"

    async def of(self, target: Target) -> dict[str, Any]:
        """The members as given at registration (empty: none sealed, or no such binding)."""
        state = await self._subscriptions.load(target.subscription_id)
        bound = state.config.destination if state is not None else None
        if bound is None or bound.fields is None or bound.credentials_id is None:
            return {}
        opened = await self._credentials.open(bound.credentials_id)
        members = json.loads(opened.creds or "{}")
        return members if isinstance(members, dict) else {}
