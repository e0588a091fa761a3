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
  from ..models.unplanned_reason import UnplannedReason





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
            problem (Problem | Unset): RFC 9457 problem details with a stable ``code``. The other members are each carried
                by the codes named: ``field`` (the offending input, most 400s), ``errors``
                (``payload_schema_invalid``, ``example_invalid``), ``attribute`` (``cloudevent_*``),
                ``eventId`` and ``payloadDigest`` (``event_payload_conflict``: the digest stored),
                ``etag``, ``currentGeneration`` or ``currentVersion`` (412: what is current),
                ``retryAfterS`` (429), ``state`` and ``command`` (a transition the state forbids),
                ``id`` (``consumer_exists``), ``dialect``, ``path``, ``position`` (``filter_invalid``),
                ``declared`` (``event_version_undeclared``: the majors there are), ``pattern`` and
                ``positions`` (``pattern_too_complex``), ``kind`` and ``line`` (``transformation_failed``),
                ``url`` (``egress_refused``), ``subscriptionId``, ``deliveryId``, ``deliveredDigest``,
                ``receiptDigest`` (a receipt's refusal or conflict), ``rolloutId``, ``keyId``,
                ``keyState``, ``stage``, ``percent``, ``sourceKeyId``, ``sourceKeyState`` (a rollout's or
                a key's refusal).
            reasons (list[UnplannedReason] | Unset):
     """

    event_id: None | str
    status: EventBatchResultStatus
    created: bool | Unset = UNSET
    deliveries: list[DeliveryRef] | Unset = UNSET
    payload_digest: str | Unset = UNSET
    problem: Problem | Unset = UNSET
    reasons: list[UnplannedReason] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.delivery_ref import DeliveryRef # noqa: PLC0415
        from ..models.problem import Problem # noqa: PLC0415
        from ..models.unplanned_reason import UnplannedReason # noqa: PLC0415
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

        reasons: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.reasons, Unset):
            reasons = []
            for reasons_item_data in self.reasons:
                reasons_item = reasons_item_data.to_dict()
                reasons.append(reasons_item)




        field_dict: dict[str, Any] = {}

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
        if reasons is not UNSET:
            field_dict["reasons"] = reasons

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivery_ref import DeliveryRef # noqa: PLC0415
        from ..models.problem import Problem # noqa: PLC0415
        from ..models.unplanned_reason import UnplannedReason # noqa: PLC0415
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




        _reasons = d.pop("reasons", UNSET)
        reasons: list[UnplannedReason] | Unset = UNSET
        if _reasons is not UNSET:
            reasons = []
            for reasons_item_data in _reasons:
                reasons_item = UnplannedReason.from_dict(reasons_item_data)



                reasons.append(reasons_item)


        event_batch_result = cls(
            event_id=event_id,
            status=status,
            created=created,
            deliveries=deliveries,
            payload_digest=payload_digest,
            problem=problem,
            reasons=reasons,
        )

        return event_batch_result

