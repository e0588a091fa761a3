from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.relay_report_answered_by_type_0 import RelayReportAnsweredByType0
from ..models.relay_report_type import RelayReportType
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RelayReport")



@_attrs_define
class RelayReport:
    """ 
        Attributes:
            attempt (int):
            delivery_id (str):
            exchange_id (str):
            type_ (RelayReportType):
            answered_by (None | RelayReportAnsweredByType0 | Unset):
            body (None | str | Unset):
            content_type (None | str | Unset):
            error (None | str | Unset):
            status (int | None | Unset):
     """

    attempt: int
    delivery_id: str
    exchange_id: str
    type_: RelayReportType
    answered_by: None | RelayReportAnsweredByType0 | Unset = UNSET
    body: None | str | Unset = UNSET
    content_type: None | str | Unset = UNSET
    error: None | str | Unset = UNSET
    status: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        attempt = self.attempt

        delivery_id = self.delivery_id

        exchange_id = self.exchange_id

        type_ = self.type_.value

        answered_by: None | str | Unset
        if isinstance(self.answered_by, Unset):
            answered_by = UNSET
        elif isinstance(self.answered_by, RelayReportAnsweredByType0):
            answered_by = self.answered_by.value
        else:
            answered_by = self.answered_by

        body: None | str | Unset
        if isinstance(self.body, Unset):
            body = UNSET
        else:
            body = self.body

        content_type: None | str | Unset
        if isinstance(self.content_type, Unset):
            content_type = UNSET
        else:
            content_type = self.content_type

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        status: int | None | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        else:
            status = self.status


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "attempt": attempt,
            "deliveryId": delivery_id,
            "exchangeId": exchange_id,
            "type": type_,
        })
        if answered_by is not UNSET:
            field_dict["answeredBy"] = answered_by
        if body is not UNSET:
            field_dict["body"] = body
        if content_type is not UNSET:
            field_dict["contentType"] = content_type
        if error is not UNSET:
            field_dict["error"] = error
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempt = d.pop("attempt")

        delivery_id = d.pop("deliveryId")

        exchange_id = d.pop("exchangeId")

        type_ = RelayReportType(d.pop("type"))




        def _parse_answered_by(data: object) -> None | RelayReportAnsweredByType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                answered_by_type_0 = RelayReportAnsweredByType0(data)



                return answered_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RelayReportAnsweredByType0 | Unset, data)

        answered_by = _parse_answered_by(d.pop("answeredBy", UNSET))


        def _parse_body(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        body = _parse_body(d.pop("body", UNSET))


        def _parse_content_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        content_type = _parse_content_type(d.pop("contentType", UNSET))


        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))


        def _parse_status(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        status = _parse_status(d.pop("status", UNSET))


        relay_report = cls(
            attempt=attempt,
            delivery_id=delivery_id,
            exchange_id=exchange_id,
            type_=type_,
            answered_by=answered_by,
            body=body,
            content_type=content_type,
            error=error,
            status=status,
        )

        return relay_report

