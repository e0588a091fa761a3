from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.event_batch_result_status import EventBatchResultStatus
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.delivery_ref import DeliveryRef
  from ..models.problem import Problem





T = TypeVar("T", bound="EventBatchResult")



@_attrs_define
class EventBatchResult:
    """ One event of a batch: ``status`` 202 (the fields of :class:`EventAccepted`), or 409/400
    with its ``problem``.

        Attributes:
            event_id (None | str):
            status (EventBatchResultStatus):
            created (bool | Unset):
            deliveries (list[DeliveryRef] | Unset):
            payload_digest (str | Unset):
            problem (Problem | Unset): RFC 9457 problem details with a stable ``code`` (``field``: the offending input).
     """

    event_id: None | str
    status: EventBatchResultStatus
    created: bool | Unset = UNSET
    deliveries: list[DeliveryRef] | Unset = UNSET
    payload_digest: str | Unset = UNSET
    problem: Problem | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.delivery_ref import DeliveryRef # noqa: PLC0415
        from ..models.problem import Problem # noqa: PLC0415
        event_id: None | str
        event_id = self.event_id

        status = self.status.value

        created = self.created

        deliveries: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.deliveries, Unset):
            deliveries = []
            for deliveries_item_data in self.deliveries:
                deliveries_item = deliveries_item_data.to_dict()
                deliveries.append(deliveries_item)



        payload_digest = self.payload_digest

        problem: dict[str, Any] | Unset = UNSET
        if not isinstance(self.problem, Unset):
            problem = self.problem.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "eventId": event_id,
            "status": status,
        })
        if created is not UNSET:
            field_dict["created"] = created
        if deliveries is not UNSET:
            field_dict["deliveries"] = deliveries
        if payload_digest is not UNSET:
            field_dict["payloadDigest"] = payload_digest
        if problem is not UNSET:
            field_dict["problem"] = problem

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivery_ref import DeliveryRef # noqa: PLC0415
        from ..models.problem import Problem # noqa: PLC0415
        d = dict(src_dict)
        def _parse_event_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        event_id = _parse_event_id(d.pop("eventId"))


        status = EventBatchResultStatus(d.pop("status"))




        created = d.pop("created", UNSET)

        _deliveries = d.pop("deliveries", UNSET)
        deliveries: list[DeliveryRef] | Unset = UNSET
        if _deliveries is not UNSET:
            deliveries = []
            for deliveries_item_data in _deliveries:
                deliveries_item = DeliveryRef.from_dict(deliveries_item_data)



                deliveries.append(deliveries_item)


        payload_digest = d.pop("payloadDigest", UNSET)

        _problem = d.pop("problem", UNSET)
        problem: Problem | Unset
        if isinstance(_problem,  Unset):
            problem = UNSET
        else:
            problem = Problem.from_dict(_problem)




        event_batch_result = cls(
            event_id=event_id,
            status=status,
            created=created,
            deliveries=deliveries,
            payload_digest=payload_digest,
            problem=problem,
        )


        event_batch_result.additional_properties = d
        return event_batch_result

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
