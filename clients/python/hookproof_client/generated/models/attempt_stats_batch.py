from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.attempt_stats import AttemptStats





T = TypeVar("T", bound="AttemptStatsBatch")



@_attrs_define
class AttemptStatsBatch:
    """ ``GET /v1/attempt-stats?subscriptionId=...`` (the parameter repeated, 1..100 ids;
    ``window`` ``24h`` or ``7d``, ``interval`` ``hour`` or ``day``: ``invalid_window``,
    ``invalid_interval`` otherwise): one
    :class:`AttemptStats` per id, in the order asked, in one read (the console's one call per
    view). Every id must be the caller's subscription (a portal session's: its consumer's),
    else 404 ``subscription_not_found``.

        Attributes:
            items (list[AttemptStats]):
            since (str):
     """

    items: list[AttemptStats]
    since: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.attempt_stats import AttemptStats # noqa: PLC0415
        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)



        since = self.since


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "items": items,
            "since": since,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt_stats import AttemptStats # noqa: PLC0415
        d = dict(src_dict)
        items = []
        _items = d.pop("items")
        for items_item_data in (_items):
            items_item = AttemptStats.from_dict(items_item_data)



            items.append(items_item)


        since = d.pop("since")

        attempt_stats_batch = cls(
            items=items,
            since=since,
        )

        return attempt_stats_batch

