from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.replay_view_state import ReplayViewState
from typing import cast

if TYPE_CHECKING:
  from ..models.replay_counts import ReplayCounts





T = TypeVar("T", bound="ReplayView")



@_attrs_define
class ReplayView:
    """ A replay job: ``state`` ``RUNNING``, ``DONE`` or ``CANCELLED``; ``total`` deliveries
    selected when it started; ``progress`` per outcome (a delivery that could not be replayed,
    e.g. one that is in flight, is ``failed``).

        Attributes:
            created_at (str):
            id (str):
            progress (ReplayCounts): What became of a replay's deliveries so far (``pending``: not reached yet).
            query_digest (str):
            rate_per_second (float):
            requested_by (str):
            state (ReplayViewState):
            total (int):
            updated_at (str):
     """

    created_at: str
    id: str
    progress: ReplayCounts
    query_digest: str
    rate_per_second: float
    requested_by: str
    state: ReplayViewState
    total: int
    updated_at: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.replay_counts import ReplayCounts # noqa: PLC0415
        created_at = self.created_at

        id = self.id

        progress = self.progress.to_dict()

        query_digest = self.query_digest

        rate_per_second = self.rate_per_second

        requested_by = self.requested_by

        state = self.state.value

        total = self.total

        updated_at = self.updated_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "createdAt": created_at,
            "id": id,
            "progress": progress,
            "queryDigest": query_digest,
            "ratePerSecond": rate_per_second,
            "requestedBy": requested_by,
            "state": state,
            "total": total,
            "updatedAt": updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.replay_counts import ReplayCounts # noqa: PLC0415
        d = dict(src_dict)
        created_at = d.pop("createdAt")

        id = d.pop("id")

        progress = ReplayCounts.from_dict(d.pop("progress"))




        query_digest = d.pop("queryDigest")

        rate_per_second = d.pop("ratePerSecond")

        requested_by = d.pop("requestedBy")

        state = ReplayViewState(d.pop("state"))




        total = d.pop("total")

        updated_at = d.pop("updatedAt")

        replay_view = cls(
            created_at=created_at,
            id=id,
            progress=progress,
            query_digest=query_digest,
            rate_per_second=rate_per_second,
            requested_by=requested_by,
            state=state,
            total=total,
            updated_at=updated_at,
        )

        return replay_view

