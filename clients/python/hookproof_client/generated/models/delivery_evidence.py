from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="DeliveryEvidence")



@_attrs_define
class DeliveryEvidence:
    """ How far a delivery's evidence got: ``endpoint`` (``ENDPOINT_ACCEPTED``,
    ``VERIFIED_ENDPOINT`` or ``NONE``) and ``application`` (``CONFIRMED``, ``PENDING`` or
    ``UNOBSERVABLE``), never inferred from each other.

        Attributes:
            application (str):
            endpoint (str):
     """

    application: str
    endpoint: str





    def to_dict(self) -> dict[str, Any]:
        application = self.application

        endpoint = self.endpoint


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "application": application,
            "endpoint": endpoint,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        application = d.pop("application")

        endpoint = d.pop("endpoint")

        delivery_evidence = cls(
            application=application,
            endpoint=endpoint,
        )

        return delivery_evidence

