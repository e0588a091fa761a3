from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="DeadLetter")



@_attrs_define
class DeadLetter:
    """ A dead letter with its owner, its reason and the request that replays it.

        Attributes:
            attempt (int):
            dead_since (None | str):
            delivery_id (str):
            event_id (str):
            owner (str):
            reason (None | str):
            replay (str):
            subscription_id (str):
     """

    attempt: int
    dead_since: None | str
    delivery_id: str
    event_id: str
    owner: str
    reason: None | str
    replay: str
    subscription_id: str





    def to_dict(self) -> dict[str, Any]:
        attempt = self.attempt

        dead_since: None | str
        dead_since = self.dead_since

        delivery_id = self.delivery_id

        event_id = self.event_id

        owner = self.owner

        reason: None | str
        reason = self.reason

        replay = self.replay

        subscription_id = self.subscription_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "attempt": attempt,
            "deadSince": dead_since,
            "deliveryId": delivery_id,
            "eventId": event_id,
            "owner": owner,
            "reason": reason,
            "replay": replay,
            "subscriptionId": subscription_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempt = d.pop("attempt")

        def _parse_dead_since(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        dead_since = _parse_dead_since(d.pop("deadSince"))


        delivery_id = d.pop("deliveryId")

        event_id = d.pop("eventId")

        owner = d.pop("owner")

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))


        replay = d.pop("replay")

        subscription_id = d.pop("subscriptionId")

        dead_letter = cls(
            attempt=attempt,
            dead_since=dead_since,
            delivery_id=delivery_id,
            event_id=event_id,
            owner=owner,
            reason=reason,
            replay=replay,
            subscription_id=subscription_id,
        )

        return dead_letter

