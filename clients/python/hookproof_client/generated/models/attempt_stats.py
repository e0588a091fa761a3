from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.attempt_stats_interval import AttemptStatsInterval
from typing import cast

if TYPE_CHECKING:
  from ..models.attempt_bucket import AttemptBucket
  from ..models.latency_percentiles import LatencyPercentiles





T = TypeVar("T", bound="AttemptStats")



@_attrs_define
class AttemptStats:
    """ ``GET /v1/subscriptions/{id}/attempt-stats``: the attempts of the last 24 hours (the
    current one included), one bucket per hour, oldest first, from ``since``; ``latency``:
    the percentiles over the whole window. Counted by the projector in batches: at most
    ``HOOKPROOF_STATS_INTERVAL_S`` (5 s) behind the log. ``interval``: ``hour``, or ``day``
    for ``GET /v1/attempt-stats?interval=day`` (one bucket per UTC day, the window's days
    ending with today).

        Attributes:
            buckets (list[AttemptBucket]):
            interval (AttemptStatsInterval):
            latency (LatencyPercentiles | None):
            since (str):
            subscription_id (str):
     """

    buckets: list[AttemptBucket]
    interval: AttemptStatsInterval
    latency: LatencyPercentiles | None
    since: str
    subscription_id: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.attempt_bucket import AttemptBucket # noqa: PLC0415
        from ..models.latency_percentiles import LatencyPercentiles # noqa: PLC0415
        buckets = []
        for buckets_item_data in self.buckets:
            buckets_item = buckets_item_data.to_dict()
            buckets.append(buckets_item)



        interval = self.interval.value

        latency: dict[str, Any] | None
        if isinstance(self.latency, LatencyPercentiles):
            latency = self.latency.to_dict()
        else:
            latency = self.latency

        since = self.since

        subscription_id = self.subscription_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "buckets": buckets,
            "interval": interval,
            "latency": latency,
            "since": since,
            "subscriptionId": subscription_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt_bucket import AttemptBucket # noqa: PLC0415
        from ..models.latency_percentiles import LatencyPercentiles # noqa: PLC0415
        d = dict(src_dict)
        buckets = []
        _buckets = d.pop("buckets")
        for buckets_item_data in (_buckets):
            buckets_item = AttemptBucket.from_dict(buckets_item_data)



            buckets.append(buckets_item)


        interval = AttemptStatsInterval(d.pop("interval"))




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


        since = d.pop("since")

        subscription_id = d.pop("subscriptionId")

        attempt_stats = cls(
            buckets=buckets,
            interval=interval,
            latency=latency,
            since=since,
            subscription_id=subscription_id,
        )

        return attempt_stats

