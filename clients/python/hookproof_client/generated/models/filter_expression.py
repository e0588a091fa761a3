from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.filter_expression_exact import FilterExpressionExact
  from ..models.filter_expression_match import FilterExpressionMatch
  from ..models.filter_expression_prefix import FilterExpressionPrefix
  from ..models.filter_expression_suffix import FilterExpressionSuffix





T = TypeVar("T", bound="FilterExpression")



@_attrs_define
class FilterExpression:
    """ One filter expression: an object of exactly one dialect. The CloudEvents Subscriptions API dialects (exact, prefix,
    suffix, all, any, not, sql: CESQL 1.0) read the event's CloudEvents attributes; match (Hookdeck's JSON match syntax)
    reads {id, topic, time, metadata, data}

        Attributes:
            all_ (list[FilterExpression] | Unset): all hold
            any_ (list[FilterExpression] | Unset): one holds
            exact (FilterExpressionExact | Unset): every attribute equals its value
            match (FilterExpressionMatch | Unset): a JSON match document ($eq $neq $gt $gte $lt $lte $in $nin $startsWith
                $endsWith $exist $or $and $not)
            not_ (FilterExpression | Unset): One filter expression: an object of exactly one dialect. The CloudEvents
                Subscriptions API dialects (exact, prefix, suffix, all, any, not, sql: CESQL 1.0) read the event's CloudEvents
                attributes; match (Hookdeck's JSON match syntax) reads {id, topic, time, metadata, data}
            prefix (FilterExpressionPrefix | Unset): every attribute starts with its value
            sql (str | Unset): a CESQL 1.0 expression: holds when its value is Boolean TRUE without error
            suffix (FilterExpressionSuffix | Unset): every attribute ends with its value
     """

    all_: list[FilterExpression] | Unset = UNSET
    any_: list[FilterExpression] | Unset = UNSET
    exact: FilterExpressionExact | Unset = UNSET
    match: FilterExpressionMatch | Unset = UNSET
    not_: FilterExpression | Unset = UNSET
    prefix: FilterExpressionPrefix | Unset = UNSET
    sql: str | Unset = UNSET
    suffix: FilterExpressionSuffix | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.filter_expression_exact import FilterExpressionExact # noqa: PLC0415
        from ..models.filter_expression_match import FilterExpressionMatch # noqa: PLC0415
        from ..models.filter_expression_prefix import FilterExpressionPrefix # noqa: PLC0415
        from ..models.filter_expression_suffix import FilterExpressionSuffix # noqa: PLC0415
        all_: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.all_, Unset):
            all_ = []
            for all_item_data in self.all_:
                all_item = all_item_data.to_dict()
                all_.append(all_item)



        any_: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.any_, Unset):
            any_ = []
            for any_item_data in self.any_:
                any_item = any_item_data.to_dict()
                any_.append(any_item)



        exact: dict[str, Any] | Unset = UNSET
        if not isinstance(self.exact, Unset):
            exact = self.exact.to_dict()

        match: dict[str, Any] | Unset = UNSET
        if not isinstance(self.match, Unset):
            match = self.match.to_dict()

        not_: dict[str, Any] | Unset = UNSET
        if not isinstance(self.not_, Unset):
            not_ = self.not_.to_dict()

        prefix: dict[str, Any] | Unset = UNSET
        if not isinstance(self.prefix, Unset):
            prefix = self.prefix.to_dict()

        sql = self.sql

        suffix: dict[str, Any] | Unset = UNSET
        if not isinstance(self.suffix, Unset):
            suffix = self.suffix.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if all_ is not UNSET:
            field_dict["all"] = all_
        if any_ is not UNSET:
            field_dict["any"] = any_
        if exact is not UNSET:
            field_dict["exact"] = exact
        if match is not UNSET:
            field_dict["match"] = match
        if not_ is not UNSET:
            field_dict["not"] = not_
        if prefix is not UNSET:
            field_dict["prefix"] = prefix
        if sql is not UNSET:
            field_dict["sql"] = sql
        if suffix is not UNSET:
            field_dict["suffix"] = suffix

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.filter_expression_exact import FilterExpressionExact # noqa: PLC0415
        from ..models.filter_expression_match import FilterExpressionMatch # noqa: PLC0415
        from ..models.filter_expression_prefix import FilterExpressionPrefix # noqa: PLC0415
        from ..models.filter_expression_suffix import FilterExpressionSuffix # noqa: PLC0415
        d = dict(src_dict)
        _all_ = d.pop("all", UNSET)
        all_: list[FilterExpression] | Unset = UNSET
        if _all_ is not UNSET:
            all_ = []
            for all_item_data in _all_:
                all_item = FilterExpression.from_dict(all_item_data)



                all_.append(all_item)


        _any_ = d.pop("any", UNSET)
        any_: list[FilterExpression] | Unset = UNSET
        if _any_ is not UNSET:
            any_ = []
            for any_item_data in _any_:
                any_item = FilterExpression.from_dict(any_item_data)



                any_.append(any_item)


        _exact = d.pop("exact", UNSET)
        exact: FilterExpressionExact | Unset
        if isinstance(_exact,  Unset):
            exact = UNSET
        else:
            exact = FilterExpressionExact.from_dict(_exact)




        _match = d.pop("match", UNSET)
        match: FilterExpressionMatch | Unset
        if isinstance(_match,  Unset):
            match = UNSET
        else:
            match = FilterExpressionMatch.from_dict(_match)




        _not_ = d.pop("not", UNSET)
        not_: FilterExpression | Unset
        if isinstance(_not_,  Unset):
            not_ = UNSET
        else:
            not_ = FilterExpression.from_dict(_not_)




        _prefix = d.pop("prefix", UNSET)
        prefix: FilterExpressionPrefix | Unset
        if isinstance(_prefix,  Unset):
            prefix = UNSET
        else:
            prefix = FilterExpressionPrefix.from_dict(_prefix)




        sql = d.pop("sql", UNSET)

        _suffix = d.pop("suffix", UNSET)
        suffix: FilterExpressionSuffix | Unset
        if isinstance(_suffix,  Unset):
            suffix = UNSET
        else:
            suffix = FilterExpressionSuffix.from_dict(_suffix)




        filter_expression = cls(
            all_=all_,
            any_=any_,
            exact=exact,
            match=match,
            not_=not_,
            prefix=prefix,
            sql=sql,
            suffix=suffix,
        )

        return filter_expression

