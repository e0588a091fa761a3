from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.attempt_bucket import AttemptBucket





T = TypeVar("T", bound="AttemptStats")



@_attrs_define
class AttemptStats:
    """ ``GET /v1/subscriptions/{id}/attempt-stats``: the attempts of the last 24 hours (the
    current one included), one bucket per hour, oldest first, from ``since``. Counted by the
    projector in batches: at most ``HOOKPROOF_STATS_INTERVAL_S`` (5 s) behind the log.

        Attributes:
            buckets (list[AttemptBucket]):
            since (str):
            subscription_id (str):
     """

    buckets: list[AttemptBucket]
    since: str
    subscription_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.attempt_bucket import AttemptBucket # noqa: PLC0415
        buckets = []
        for buckets_item_data in self.buckets:
            buckets_item = buckets_item_data.to_dict()
            buckets.append(buckets_item)



        since = self.since

        subscription_id = self.subscription_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "buckets": buckets,
            "since": since,
            "subscriptionId": subscription_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt_bucket import AttemptBucket # noqa: PLC0415
        d = dict(src_dict)
        buckets = []
        _buckets = d.pop("buckets")
        for buckets_item_data in (_buckets):
            buckets_item = AttemptBucket.from_dict(buckets_item_data)



            buckets.append(buckets_item)


        since = d.pop("since")

        subscription_id = d.pop("subscriptionId")

        attempt_stats = cls(
            buckets=buckets,
            since=since,
            subscription_id=subscription_id,
        )


        attempt_stats.additional_properties = d
        return attempt_stats

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
