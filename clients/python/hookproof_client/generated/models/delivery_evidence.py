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
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        application = self.application

        endpoint = self.endpoint


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
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


        delivery_evidence.additional_properties = d
        return delivery_evidence

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
