from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="AttemptRequestView")



@_attrs_define
class AttemptRequestView:
    """ What one attempt sent: ``method`` (``POST``; ``null`` for a broker, which publishes),
    ``target`` (the endpoint, or the broker destination URI), ``headers`` (``[name, value]``
    in the order sent; ``Signature-Input``, ``Signature`` and ``webhook-signature`` read
    ``[redacted]``; an endpoint authentication header is not listed). Rebuilt from the
    delivery's events; ``traceparent`` and ``webhook-timestamp`` are recorded with the
    attempt's outcome (``recorded``: false for an attempt without one, lost with its
    dispatcher or sent before it was recorded: those values are then ``null``).

        Attributes:
            headers (list[list[None | str]]):
            method (None | str):
            recorded (bool):
            target (str):
     """

    headers: list[list[None | str]]
    method: None | str
    recorded: bool
    target: str





    def to_dict(self) -> dict[str, Any]:
        headers = []
        for headers_item_data in self.headers:
            headers_item = []
            for headers_item_item_data in headers_item_data:
                headers_item_item: None | str
                headers_item_item = headers_item_item_data
                headers_item.append(headers_item_item)


            headers.append(headers_item)



        method: None | str
        method = self.method

        recorded = self.recorded

        target = self.target


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "headers": headers,
            "method": method,
            "recorded": recorded,
            "target": target,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        headers = []
        _headers = d.pop("headers")
        for headers_item_data in (_headers):
            headers_item = []
            _headers_item = headers_item_data
            for headers_item_item_data in (_headers_item):
                def _parse_headers_item_item(data: object) -> None | str:
                    if data is None:
                        return data
                    return cast(None | str, data)

                headers_item_item = _parse_headers_item_item(headers_item_item_data)

                headers_item.append(headers_item_item)

            headers.append(headers_item)


        def _parse_method(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        method = _parse_method(d.pop("method"))


        recorded = d.pop("recorded")

        target = d.pop("target")

        attempt_request_view = cls(
            headers=headers,
            method=method,
            recorded=recorded,
            target=target,
        )

        return attempt_request_view

