from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.portal_session_create_capabilities_item import PortalSessionCreateCapabilitiesItem
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PortalSessionCreate")



@_attrs_define
class PortalSessionCreate:
    """ ``POST /v1/consumers/{id}/portal-sessions``.

        Attributes:
            capabilities (list[PortalSessionCreateCapabilitiesItem] | Unset):
            ttl_seconds (int | Unset): 60..86400 seconds
     """

    capabilities: list[PortalSessionCreateCapabilitiesItem] | Unset = UNSET
    ttl_seconds: int | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        capabilities: list[str] | Unset = UNSET
        if not isinstance(self.capabilities, Unset):
            capabilities = []
            for capabilities_item_data in self.capabilities:
                capabilities_item = capabilities_item_data.value
                capabilities.append(capabilities_item)



        ttl_seconds = self.ttl_seconds


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if capabilities is not UNSET:
            field_dict["capabilities"] = capabilities
        if ttl_seconds is not UNSET:
            field_dict["ttlSeconds"] = ttl_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        _capabilities = d.pop("capabilities", UNSET)
        capabilities: list[PortalSessionCreateCapabilitiesItem] | Unset = UNSET
        if _capabilities is not UNSET:
            capabilities = []
            for capabilities_item_data in _capabilities:
                capabilities_item = PortalSessionCreateCapabilitiesItem(capabilities_item_data)



                capabilities.append(capabilities_item)


        ttl_seconds = d.pop("ttlSeconds", UNSET)

        portal_session_create = cls(
            capabilities=capabilities,
            ttl_seconds=ttl_seconds,
        )

        return portal_session_create

