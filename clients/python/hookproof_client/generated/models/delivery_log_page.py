from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.delivery_log_item import DeliveryLogItem





T = TypeVar("T", bound="DeliveryLogPage")



@_attrs_define
class DeliveryLogPage:
    """ ``GET /v1/deliveries``: the log, newest first (``createdAt``, then ``deliveryId``).
    Filters (each optional, combined with AND): ``subscriptionId``, ``eventType`` (a topic),
    ``state`` (a ledger state), ``evidence`` (``ENDPOINT_ACCEPTED``: the endpoint accepted it;
    ``APPLICATION_CONFIRMED``: a signed receipt confirmed it; ``NONE``: no acceptance yet),
    ``since``/``until`` (RFC 3339, on ``createdAt``, since inclusive, until exclusive),
    ``eventId``, ``deliveryId``, ``idPrefix`` (the start of an id: of a delivery id when it
    starts with ``dlv_``, else of an event id; 1..200 printable characters); ``limit``
    1..1000 (default 100) and ``cursor`` (a ``nextCursor``). A bad value is a 400 with a code
    (``invalid_state``, ``invalid_evidence``, ``invalid_time``, ``invalid_time_range``,
    ``invalid_id``, ``invalid_id_prefix``, ``invalid_event_type``, ``invalid_limit``,
    ``invalid_cursor``, ``unknown_parameter``).
    A portal session sees only its consumer's deliveries.

        Attributes:
            items (list[DeliveryLogItem]):
            next_cursor (None | str):
     """

    items: list[DeliveryLogItem]
    next_cursor: None | str





    def to_dict(self) -> dict[str, Any]:
        from ..models.delivery_log_item import DeliveryLogItem # noqa: PLC0415
        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)



        next_cursor: None | str
        next_cursor = self.next_cursor


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "items": items,
            "nextCursor": next_cursor,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivery_log_item import DeliveryLogItem # noqa: PLC0415
        d = dict(src_dict)
        items = []
        _items = d.pop("items")
        for items_item_data in (_items):
            items_item = DeliveryLogItem.from_dict(items_item_data)



            items.append(items_item)


        def _parse_next_cursor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_cursor = _parse_next_cursor(d.pop("nextCursor"))


        delivery_log_page = cls(
            items=items,
            next_cursor=next_cursor,
        )

        return delivery_log_page

