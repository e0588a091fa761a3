from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.attempt_bucket_counts import AttemptBucketCounts





T = TypeVar("T", bound="AttemptBucket")



@_attrs_define
class AttemptBucket:
    """ One hour of a subscription's attempts: ``hour`` (RFC 3339, UTC, on the hour) and
    ``counts``, attempts by outcome (``ENDPOINT_ACCEPTED``, ``RETRYABLE``,
    ``UNKNOWN_TRANSPORT``, ``DEAD_LETTER``; an outcome without attempts is absent).

        Attributes:
            counts (AttemptBucketCounts):
            hour (str):
     """

    counts: AttemptBucketCounts
    hour: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.attempt_bucket_counts import AttemptBucketCounts # noqa: PLC0415
        counts = self.counts.to_dict()

        hour = self.hour


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "counts": counts,
            "hour": hour,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt_bucket_counts import AttemptBucketCounts # noqa: PLC0415
        d = dict(src_dict)
        counts = AttemptBucketCounts.from_dict(d.pop("counts"))




        hour = d.pop("hour")

        attempt_bucket = cls(
            counts=counts,
            hour=hour,
        )


        attempt_bucket.additional_properties = d
        return attempt_bucket

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
