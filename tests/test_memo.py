"""The bounded memo behind the per-worker caches (engine/common/memo.py)."""

from __future__ import annotations

import pytest

from hookproof.engine.common.memo import BoundedMemo


def test_bounded_memo_never_holds_more_than_its_limit() -> None:
    memo: BoundedMemo[int, str] = BoundedMemo(3)
    for i in range(10):
        memo.put(i, str(i))
        assert len(memo) <= 3
        assert memo.get(i) == str(i)  # what was just put is always there
    assert memo.get(0) is None  # emptied on the way


def test_bounded_memo_replacing_a_key_does_not_empty_it() -> None:
    memo: BoundedMemo[str, int] = BoundedMemo(2)
    memo.put("a", 1)
    memo.put("b", 2)
    memo.put("b", 3)  # full, but the key is there: a replacement, not a new entry
    assert (memo.get("a"), memo.get("b"), len(memo)) == (1, 3, 2)
    memo.put("c", 4)
    assert (memo.get("a"), memo.get("c"), len(memo)) == (None, 4, 1)


def test_bounded_memo_needs_a_positive_limit() -> None:
    with pytest.raises(ValueError):
        BoundedMemo(0)


def test_the_poster_state_memo_is_bounded() -> None:
    """A fan-out to 10,000 sites must not keep 10,000 subscription states in each worker."""
    from hookproof.engine.destinations.https.adapter import STATE_MEMO

    assert STATE_MEMO <= 2_048


def test_the_egress_target_memo_is_bounded_like_the_states() -> None:
    """URL targets (~1 KiB each) are kept no longer than subscription states are."""
    from hookproof.engine.destinations.https.adapter import STATE_MEMO
    from hookproof.engine.egress.adapter import _TARGET_MEMO

    assert _TARGET_MEMO <= STATE_MEMO
