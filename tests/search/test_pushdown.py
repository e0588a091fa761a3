"""What of a ``filters`` array goes to the database (pure): the equalities the search index
and the log's columns answer, and nothing a filter does not require."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.engine.filters import compile_filters
from hookproof.engine.search.pushdown import pushdown
from hookproof.engine.search.replay import due_after


@pytest.mark.parametrize(
    ("filters", "topic", "event_id", "jsonpath"),
    [
        ([], None, None, None),
        ([{"match": {"data": {"customer": "c-1"}}}], None, None, '$."payload"."customer" == "c-1"'),
        (
            [{"match": {"data": {"n": 2, "ok": True}}}],
            None,
            None,
            '$."payload"."n" == 2 && $."payload"."ok" == true',
        ),
        ([{"match": {"data": {"a": {"$eq": 1.5}}}}], None, None, '$."payload"."a" == 1.5'),
        (
            [{"match": {"data": {"$and": [{"a": "x"}, {"b": "y"}]}}}],
            None,
            None,
            '$."payload"."a" == "x" && $."payload"."b" == "y"',
        ),
        ([{"match": {"data": {"a": {"$gt": 1}}}}], None, None, None),  # not an equality
        ([{"match": {"data": {"a": None}}}], None, None, None),
        ([{"match": {"data": {"a": "x\x00"}}}], None, None, None),  # jsonb holds no NUL
        ([{"match": {"topic": "t.a", "id": "e-1", "time": "2026"}}], "t.a", "e-1", None),
        (
            [{"match": {"metadata": {"aggregateId": "o-1", "version": "1.0"}}}],
            None,
            None,
            '$."aggregateId" == "o-1"',
        ),
        (
            [{"exact": {"type": "t.a", "id": "e-1", "subject": "o-1", "source": "s"}}],
            "t.a",
            "e-1",
            '$."aggregateId" == "o-1"',
        ),
        (
            [{"all": [{"exact": {"type": "t.a"}}, {"match": {"data": {"k": "v"}}}]}],
            "t.a",
            None,
            '$."payload"."k" == "v"',
        ),
        ([{"any": [{"exact": {"type": "t.a"}}, {"exact": {"type": "t.b"}}]}], None, None, None),
        ([{"not": {"exact": {"type": "t.a"}}}], None, None, None),
        ([{"sql": "type = 't.a'"}], None, None, None),
        ([{"match": {"data": {'we"ird': "é"}}}], None, None, '$."payload"."we\\"ird" == "é"'),
    ],
)
def test_pushdown(
    filters: list[Any], topic: str | None, event_id: str | None, jsonpath: str | None
) -> None:
    pushed = pushdown(compile_filters(filters))
    assert (pushed.topic, pushed.event_id, pushed.jsonpath) == (topic, event_id, jsonpath)
    assert not pushed.impossible


def test_two_different_equalities_on_a_column_match_nothing() -> None:
    pushed = pushdown(compile_filters([{"exact": {"type": "a"}}, {"match": {"topic": "b"}}]))
    assert pushed.impossible


def test_the_pace_never_runs_ahead_of_the_rate() -> None:
    assert [due_after(10.0, i, 4.0) for i in range(5)] == [10.0, 10.25, 10.5, 10.75, 11.0]
