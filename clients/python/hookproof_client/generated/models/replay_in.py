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





T = TypeVar("T", bound="ReplayIn")



@_attrs_define
class ReplayIn:
    """ ``POST /v1/replays``: the deliveries a search finds (the same body; ``limit`` and
    ``cursor`` are ignored: every match), replayed as a job at ``ratePerSecond`` (default 10,
    at most 100). ``dryRun``: only the count and a sample (up to 10 delivery ids).

        Attributes:
            consumer_id (None | str | Unset):
            cursor (None | str | Unset):
            dry_run (bool | Unset):
            evidence (None | str | Unset):
            filters (list[FilterExpression] | Unset): filter expressions that must all hold (empty: every event)
            limit (int | Unset):
            rate_per_second (float | Unset):
            reason_code (None | str | Unset):
            since (None | str | Unset):
            state (None | str | Unset):
            status_code (int | None | Unset):
            subscription_id (None | str | Unset):
            until (None | str | Unset):
     """

    consumer_id: None | str | Unset = UNSET
    cursor: None | str | Unset = UNSET
    dry_run: bool | Unset = UNSET
    evidence: None | str | Unset = UNSET
    filters: list[FilterExpression] | Unset = UNSET
    limit: int | Unset = UNSET
    rate_per_second: float | Unset = UNSET
    reason_code: None | str | Unset = UNSET
    since: None | str | Unset = UNSET
    state: None | str | Unset = UNSET
    status_code: int | None | Unset = UNSET
    subscription_id: None | str | Unset = UNSET
    until: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.filter_expression import FilterExpression # noqa: PLC0415
        consumer_id: None | str | Unset
        if isinstance(self.consumer_id, Unset):
            consumer_id = UNSET
        else:
            consumer_id = self.consumer_id

        cursor: None | str | Unset
        if isinstance(self.cursor, Unset):
            cursor = UNSET
        else:
            cursor = self.cursor

        dry_run = self.dry_run

        evidence: None | str | Unset
        if isinstance(self.evidence, Unset):
            evidence = UNSET
        else:
            evidence = self.evidence

        filters: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.filters, Unset):
            filters = []
            for componentsschemas_filters_item_data in self.filters:
                componentsschemas_filters_item = componentsschemas_filters_item_data.to_dict()
                filters.append(componentsschemas_filters_item)



        limit = self.limit

        rate_per_second = self.rate_per_second

        reason_code: None | str | Unset
        if isinstance(self.reason_code, Unset):
            reason_code = UNSET
        else:
            reason_code = self.reason_code

        since: None | str | Unset
        if isinstance(self.since, Unset):
            since = UNSET
        else:
            since = self.since

        state: None | str | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        else:
            state = self.state

        status_code: int | None | Unset
        if isinstance(self.status_code, Unset):
            status_code = UNSET
        else:
            status_code = self.status_code

        subscription_id: None | str | Unset
        if isinstance(self.subscription_id, Unset):
            subscription_id = UNSET
        else:
            subscription_id = self.subscription_id

        until: None | str | Unset
        if isinstance(self.until, Unset):
            until = UNSET
        else:
            until = self.until


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if consumer_id is not UNSET:
            field_dict["consumerId"] = consumer_id
        if cursor is not UNSET:
            field_dict["cursor"] = cursor
        if dry_run is not UNSET:
            field_dict["dryRun"] = dry_run
        if evidence is not UNSET:
            field_dict["evidence"] = evidence
        if filters is not UNSET:
            field_dict["filters"] = filters
        if limit is not UNSET:
            field_dict["limit"] = limit
        if rate_per_second is not UNSET:
            field_dict["ratePerSecond"] = rate_per_second
        if reason_code is not UNSET:
            field_dict["reasonCode"] = reason_code
        if since is not UNSET:
            field_dict["since"] = since
        if state is not UNSET:
            field_dict["state"] = state
        if status_code is not UNSET:
            field_dict["statusCode"] = status_code
        if subscription_id is not UNSET:
            field_dict["subscriptionId"] = subscription_id
        if until is not UNSET:
            field_dict["until"] = until

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.filter_expression import FilterExpression # noqa: PLC0415
        d = dict(src_dict)
        def _parse_consumer_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        consumer_id = _parse_consumer_id(d.pop("consumerId", UNSET))


        def _parse_cursor(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cursor = _parse_cursor(d.pop("cursor", UNSET))


        dry_run = d.pop("dryRun", UNSET)

        def _parse_evidence(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        evidence = _parse_evidence(d.pop("evidence", UNSET))


        _filters = d.pop("filters", UNSET)
        filters: list[FilterExpression] | Unset = UNSET
        if _filters is not UNSET:
            filters = []
            for componentsschemas_filters_item_data in _filters:
                componentsschemas_filters_item = FilterExpression.from_dict(componentsschemas_filters_item_data)



                filters.append(componentsschemas_filters_item)


        limit = d.pop("limit", UNSET)

        rate_per_second = d.pop("ratePerSecond", UNSET)

        def _parse_reason_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason_code = _parse_reason_code(d.pop("reasonCode", UNSET))


        def _parse_since(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        since = _parse_since(d.pop("since", UNSET))


        def _parse_state(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        state = _parse_state(d.pop("state", UNSET))


        def _parse_status_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        status_code = _parse_status_code(d.pop("statusCode", UNSET))


        def _parse_subscription_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subscription_id = _parse_subscription_id(d.pop("subscriptionId", UNSET))


        def _parse_until(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        until = _parse_until(d.pop("until", UNSET))


        replay_in = cls(
            consumer_id=consumer_id,
            cursor=cursor,
            dry_run=dry_run,
            evidence=evidence,
            filters=filters,
            limit=limit,
            rate_per_second=rate_per_second,
            reason_code=reason_code,
            since=since,
            state=state,
            status_code=status_code,
            subscription_id=subscription_id,
            until=until,
        )

        return replay_in

