from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="AttemptResponseView")



@_attrs_define
class AttemptResponseView:
    """ An attempt's ``response`` in ``GET /v1/deliveries/{id}``: what came back, bounded and
    redacted when recorded: at most 32 ``headers`` (``[name, value]``, values cut to 256
    characters; credentials, cookies and signatures ``[redacted]``), ``excerpt``: the first
    2,048 bytes of the body as UTF-8 text (any echo of a signature the engine sent is
    ``[redacted]``), ``bodyBytes`` the whole body's size. Absent for attempts recorded before
    it existed and for attempts without an answer.

        Attributes:
            body_bytes (int):
            excerpt (str):
            excerpt_truncated (bool):
            headers (list[list[str]]):
            headers_truncated (bool):
     """

    body_bytes: int
    excerpt: str
    excerpt_truncated: bool
    headers: list[list[str]]
    headers_truncated: bool





    def to_dict(self) -> dict[str, Any]:
        body_bytes = self.body_bytes

        excerpt = self.excerpt

        excerpt_truncated = self.excerpt_truncated

        headers = []
        for headers_item_data in self.headers:
            headers_item = headers_item_data


            headers.append(headers_item)



        headers_truncated = self.headers_truncated


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "bodyBytes": body_bytes,
            "excerpt": excerpt,
            "excerptTruncated": excerpt_truncated,
            "headers": headers,
            "headersTruncated": headers_truncated,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        body_bytes = d.pop("bodyBytes")

        excerpt = d.pop("excerpt")

        excerpt_truncated = d.pop("excerptTruncated")

        headers = []
        _headers = d.pop("headers")
        for headers_item_data in (_headers):
            headers_item = cast(list[str], headers_item_data)

            headers.append(headers_item)


        headers_truncated = d.pop("headersTruncated")

        attempt_response_view = cls(
            body_bytes=body_bytes,
            excerpt=excerpt,
            excerpt_truncated=excerpt_truncated,
            headers=headers,
            headers_truncated=headers_truncated,
        )

        return attempt_response_view

