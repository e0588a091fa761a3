from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.whoami_capabilities_item import WhoamiCapabilitiesItem
from ..models.whoami_kind import WhoamiKind
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Whoami")



@_attrs_define
class Whoami:
    """ 
        Attributes:
            kind (WhoamiKind):
            capabilities (list[WhoamiCapabilitiesItem] | Unset):
            consumer_id (str | Unset):
            expires_at (str | Unset):
            session_id (str | Unset):
            tenant_id (str | Unset):
     """

    kind: WhoamiKind
    capabilities: list[WhoamiCapabilitiesItem] | Unset = UNSET
    consumer_id: str | Unset = UNSET
    expires_at: str | Unset = UNSET
    session_id: str | Unset = UNSET
    tenant_id: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        capabilities: list[str] | Unset = UNSET
        if not isinstance(self.capabilities, Unset):
            capabilities = []
            for capabilities_item_data in self.capabilities:
                capabilities_item = capabilities_item_data.value
                capabilities.append(capabilities_item)



        consumer_id = self.consumer_id

        expires_at = self.expires_at

        session_id = self.session_id

        tenant_id = self.tenant_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "kind": kind,
        })
        if capabilities is not UNSET:
            field_dict["capabilities"] = capabilities
        if consumer_id is not UNSET:
            field_dict["consumerId"] = consumer_id
        if expires_at is not UNSET:
            field_dict["expiresAt"] = expires_at
        if session_id is not UNSET:
            field_dict["sessionId"] = session_id
        if tenant_id is not UNSET:
            field_dict["tenantId"] = tenant_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = WhoamiKind(d.pop("kind"))




        _capabilities = d.pop("capabilities", UNSET)
        capabilities: list[WhoamiCapabilitiesItem] | Unset = UNSET
        if _capabilities is not UNSET:
            capabilities = []
            for capabilities_item_data in _capabilities:
                capabilities_item = WhoamiCapabilitiesItem(capabilities_item_data)



                capabilities.append(capabilities_item)


        consumer_id = d.pop("consumerId", UNSET)

        expires_at = d.pop("expiresAt", UNSET)

        session_id = d.pop("sessionId", UNSET)

        tenant_id = d.pop("tenantId", UNSET)

        whoami = cls(
            kind=kind,
            capabilities=capabilities,
            consumer_id=consumer_id,
            expires_at=expires_at,
            session_id=session_id,
            tenant_id=tenant_id,
        )

        return whoami

