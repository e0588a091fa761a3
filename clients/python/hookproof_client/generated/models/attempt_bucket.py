from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.attempt_bucket_counts import AttemptBucketCounts
  from ..models.latency_percentiles import LatencyPercentiles





T = TypeVar("T", bound="AttemptBucket")



@_attrs_define
class AttemptBucket:
    """ One hour (or UTC day) of a subscription's attempts: ``hour`` (RFC 3339, UTC, its
    start), ``counts``, attempts by outcome (``ENDPOINT_ACCEPTED``, ``RETRYABLE``,
    ``UNKNOWN_TRANSPORT``, ``DEAD_LETTER``; an outcome without attempts is absent), and
    ``latency`` (``null`` when no attempt of it has a duration).

        Attributes:
            counts (AttemptBucketCounts):
            hour (str):
            latency (LatencyPercentiles | None):
     """

    counts: AttemptBucketCounts
    hour: str
    latency: LatencyPercentiles | None





    def to_dict(self) -> dict[str, Any]:
        from ..models.attempt_bucket_counts import AttemptBucketCounts # noqa: PLC0415
        from ..models.latency_percentiles import LatencyPercentiles # noqa: PLC0415
        counts = self.counts.to_dict()

        hour = self.hour

        latency: dict[str, Any] | None
        if isinstance(self.latency, LatencyPercentiles):
            latency = self.latency.to_dict()
        else:
            latency = self.latency


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "counts": counts,
            "hour": hour,
            "latency": latency,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt_bucket_counts import AttemptBucketCounts # noqa: PLC0415
        from ..models.latency_percentiles import LatencyPercentiles # noqa: PLC0415
        d = dict(src_dict)
        counts = AttemptBucketCounts.from_dict(d.pop("counts"))




        hour = d.pop("hour")

        def _parse_latency(data: object) -> LatencyPercentiles | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                latency_type_0 = LatencyPercentiles.from_dict(data)



                return latency_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LatencyPercentiles | None, data)

        latency = _parse_latency(d.pop("latency"))


        attempt_bucket = cls(
            counts=counts,
            hour=hour,
            latency=latency,
        )

        return attempt_bucket

