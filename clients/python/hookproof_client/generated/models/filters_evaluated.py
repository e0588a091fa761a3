from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.filter_outcome import FilterOutcome





T = TypeVar("T", bound="FiltersEvaluated")



@_attrs_define
class FiltersEvaluated:
    """ ``POST /v1/filters/evaluate``: whether every expression held (``matches``), each
    one's outcome in order, and the digest the ledger would record for these filters.

        Attributes:
            digest (str):
            matches (bool):
            results (list[FilterOutcome]):
     """

    digest: str
    matches: bool
    results: list[FilterOutcome]





    def to_dict(self) -> dict[str, Any]:
        from ..models.filter_outcome import FilterOutcome # noqa: PLC0415
        digest = self.digest

        matches = self.matches

        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "digest": digest,
            "matches": matches,
            "results": results,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.filter_outcome import FilterOutcome # noqa: PLC0415
        d = dict(src_dict)
        digest = d.pop("digest")

        matches = d.pop("matches")

        results = []
        _results = d.pop("results")
        for results_item_data in (_results):
            results_item = FilterOutcome.from_dict(results_item_data)



            results.append(results_item)


        filters_evaluated = cls(
            digest=digest,
            matches=matches,
            results=results,
        )

        return filters_evaluated

