from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RecoverIn")



@_attrs_define
class RecoverIn:
    """ ``POST /v1/subscriptions/{id}/recover``: deliveries in ``states`` whose state was last
    changed in ``[since, until)`` go back to RETRYABLE (at most ``limit`` per call).

        Attributes:
            since (str):
            limit (int | None | Unset):
            states (list[str] | None | Unset):
            until (None | str | Unset):
     """

    since: str
    limit: int | None | Unset = UNSET
    states: list[str] | None | Unset = UNSET
    until: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        since = self.since

        limit: int | None | Unset
        if isinstance(self.limit, Unset):
            limit = UNSET
        else:
            limit = self.limit

        states: list[str] | None | Unset
        if isinstance(self.states, Unset):
            states = UNSET
        elif isinstance(self.states, list):
            states = self.states


        else:
            states = self.states

        until: None | str | Unset
        if isinstance(self.until, Unset):
            until = UNSET
        else:
            until = self.until


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "since": since,
        })
        if limit is not UNSET:
            field_dict["limit"] = limit
        if states is not UNSET:
            field_dict["states"] = states
        if until is not UNSET:
            field_dict["until"] = until

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        since = d.pop("since")

        def _parse_limit(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        limit = _parse_limit(d.pop("limit", UNSET))


        def _parse_states(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                states_type_0 = cast(list[str], data)

                return states_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        states = _parse_states(d.pop("states", UNSET))


        def _parse_until(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        until = _parse_until(d.pop("until", UNSET))


        recover_in = cls(
            since=since,
            limit=limit,
            states=states,
            until=until,
        )

        return recover_in

