from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="LatencyPercentiles")



@_attrs_define
class LatencyPercentiles:
    """ Attempt durations (ms, from the attempt being sent to its answer) at the 50th, 90th and
    99th percentile, read from a histogram of fixed log-spaced buckets (8 per decade, 1 ms to
    100 s) that the projector keeps beside the counts: each within a factor 1.33 of the exact
    value. ``count``: the attempts with a duration (an attempt lost with its dispatcher has
    none).

        Attributes:
            count (int):
            p50 (float):
            p90 (float):
            p99 (float):
     """

    count: int
    p50: float
    p90: float
    p99: float





    def to_dict(self) -> dict[str, Any]:
        count = self.count

        p50 = self.p50

        p90 = self.p90

        p99 = self.p99


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "count": count,
            "p50": p50,
            "p90": p90,
            "p99": p99,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        count = d.pop("count")

        p50 = d.pop("p50")

        p90 = d.pop("p90")

        p99 = d.pop("p99")

        latency_percentiles = cls(
            count=count,
            p50=p50,
            p90=p90,
            p99=p99,
        )

        return latency_percentiles

