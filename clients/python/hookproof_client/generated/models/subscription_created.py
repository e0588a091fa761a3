from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.filter_expression import FilterExpression





T = TypeVar("T", bound="SubscriptionCreated")



@_attrs_define
class SubscriptionCreated:
    """ ``POST /v1/subscriptions``: the subscription, with its shared secret shown once
    (hmac-sha256 only: ``whsec_...`` or base64).

        Attributes:
            consumer_id (None | str):
            created_at (str):
            endpoint (None | str):
            event_versions (list[int]):
            filters (list[FilterExpression]): filter expressions that must all hold (empty: every event)
            generation (int):
            id (str):
            ordering (str):
            signature_algorithm (str):
            signature_profile (str):
            state (str):
            tenant_id (str):
            topics (list[str]):
            updated_at (str):
            version (int):
            secret (str | Unset):
     """

    consumer_id: None | str
    created_at: str
    endpoint: None | str
    event_versions: list[int]
    filters: list[FilterExpression]
    generation: int
    id: str
    ordering: str
    signature_algorithm: str
    signature_profile: str
    state: str
    tenant_id: str
    topics: list[str]
    updated_at: str
    version: int
    secret: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.filter_expression import FilterExpression # noqa: PLC0415
        consumer_id: None | str
        consumer_id = self.consumer_id

        created_at = self.created_at

        endpoint: None | str
        endpoint = self.endpoint

        event_versions = self.event_versions



        filters = []
        for componentsschemas_filters_item_data in self.filters:
            componentsschemas_filters_item = componentsschemas_filters_item_data.to_dict()
            filters.append(componentsschemas_filters_item)



        generation = self.generation

        id = self.id

        ordering = self.ordering

        signature_algorithm = self.signature_algorithm

        signature_profile = self.signature_profile

        state = self.state

        tenant_id = self.tenant_id

        topics = self.topics



        updated_at = self.updated_at

        version = self.version

        secret = self.secret


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "consumerId": consumer_id,
            "createdAt": created_at,
            "endpoint": endpoint,
            "eventVersions": event_versions,
            "filters": filters,
            "generation": generation,
            "id": id,
            "ordering": ordering,
            "signatureAlgorithm": signature_algorithm,
            "signatureProfile": signature_profile,
            "state": state,
            "tenantId": tenant_id,
            "topics": topics,
            "updatedAt": updated_at,
            "version": version,
        })
        if secret is not UNSET:
            field_dict["secret"] = secret

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.filter_expression import FilterExpression # noqa: PLC0415
        d = dict(src_dict)
        def _parse_consumer_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        consumer_id = _parse_consumer_id(d.pop("consumerId"))


        created_at = d.pop("createdAt")

        def _parse_endpoint(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        endpoint = _parse_endpoint(d.pop("endpoint"))


        event_versions = cast(list[int], d.pop("eventVersions"))


        filters = []
        _filters = d.pop("filters")
        for componentsschemas_filters_item_data in (_filters):
            componentsschemas_filters_item = FilterExpression.from_dict(componentsschemas_filters_item_data)



            filters.append(componentsschemas_filters_item)


        generation = d.pop("generation")

        id = d.pop("id")

        ordering = d.pop("ordering")

        signature_algorithm = d.pop("signatureAlgorithm")

        signature_profile = d.pop("signatureProfile")

        state = d.pop("state")

        tenant_id = d.pop("tenantId")

        topics = cast(list[str], d.pop("topics"))


        updated_at = d.pop("updatedAt")

        version = d.pop("version")

        secret = d.pop("secret", UNSET)

        subscription_created = cls(
            consumer_id=consumer_id,
            created_at=created_at,
            endpoint=endpoint,
            event_versions=event_versions,
            filters=filters,
            generation=generation,
            id=id,
            ordering=ordering,
            signature_algorithm=signature_algorithm,
            signature_profile=signature_profile,
            state=state,
            tenant_id=tenant_id,
            topics=topics,
            updated_at=updated_at,
            version=version,
            secret=secret,
        )


        subscription_created.additional_properties = d
        return subscription_created

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
