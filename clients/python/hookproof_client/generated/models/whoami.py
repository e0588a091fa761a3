from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.whoami_kind import WhoamiKind
from ..types import UNSET, Unset






T = TypeVar("T", bound="Whoami")



@_attrs_define
class Whoami:
    """ 
        Attributes:
            kind (WhoamiKind):
            consumer_id (str | Unset):
            session_id (str | Unset):
            tenant_id (str | Unset):
     """

    kind: WhoamiKind
    consumer_id: str | Unset = UNSET
    session_id: str | Unset = UNSET
    tenant_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        consumer_id = self.consumer_id

        session_id = self.session_id

        tenant_id = self.tenant_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "kind": kind,
        })
        if consumer_id is not UNSET:
            field_dict["consumerId"] = consumer_id
        if session_id is not UNSET:
            field_dict["sessionId"] = session_id
        if tenant_id is not UNSET:
            field_dict["tenantId"] = tenant_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = WhoamiKind(d.pop("kind"))




        consumer_id = d.pop("consumerId", UNSET)

        session_id = d.pop("sessionId", UNSET)

        tenant_id = d.pop("tenantId", UNSET)

        whoami = cls(
            kind=kind,
            consumer_id=consumer_id,
            session_id=session_id,
            tenant_id=tenant_id,
        )


        whoami.additional_properties = d
        return whoami

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
