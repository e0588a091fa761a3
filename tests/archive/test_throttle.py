"""The archive throttle's rule, without a clock or a database."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.config import Settings
from hookproof.engine.archive.throttle import Throttle, pause_after
from hookproof.errors import ValidationError

T = Throttle(duty=0.5, min_duty=0.2, max_lag_s=2.0, pause_s=0.02)


def test_a_half_duty_pauses_as_long_as_it_worked() -> None:
    assert pause_after(1.0, None, T) == pytest.approx(1.0)
    assert pause_after(0.4, 0.5, T) == pytest.approx(0.4)


def test_while_delivery_lags_archival_takes_the_smaller_share() -> None:
    # 1 s of work at a 20% duty: 4 s of pause, archival keeps a fifth of the time
    assert pause_after(1.0, 2.5, T) == pytest.approx(4.0)
    # at the threshold itself delivery still counts as keeping up
    assert pause_after(1.0, 2.0, T) == pytest.approx(1.0)


def test_archival_fallen_behind_takes_its_full_share_despite_a_lag() -> None:
    t = Throttle(duty=0.5, min_duty=0.2, max_lag_s=2.0, max_behind_s=60.0)
    assert pause_after(1.0, 30.0, t, behind_s=30.0) == pytest.approx(4.0)
    assert pause_after(1.0, 30.0, t, behind_s=60.0) == pytest.approx(4.0)
    assert pause_after(1.0, 30.0, t, behind_s=61.0) == pytest.approx(1.0)
    # behind with delivery keeping up: the full share, as always
    assert pause_after(1.0, None, t, behind_s=600.0) == pytest.approx(1.0)


def test_the_least_pause_holds_after_a_tiny_step() -> None:
    assert pause_after(0.0, None, T) == 0.02
    assert pause_after(-1.0, None, T) == 0.02
    assert pause_after(0.001, None, Throttle(duty=1.0, pause_s=0.05)) == 0.05


def test_a_full_duty_only_keeps_the_least_pause() -> None:
    assert pause_after(3.0, None, Throttle(duty=1.0, min_duty=1.0, pause_s=0.0)) == 0.0


@given(
    worked=st.floats(0.0, 60.0),
    lag=st.one_of(st.none(), st.floats(0.0, 3600.0)),
    duty=st.floats(0.01, 1.0),
    min_duty=st.floats(0.01, 1.0),
)
def test_archival_never_works_more_than_its_share(
    worked: float, lag: float | None, duty: float, min_duty: float
) -> None:
    t = Throttle(duty=duty, min_duty=min_duty, max_lag_s=2.0, pause_s=0.0)
    pause = pause_after(worked, lag, t)
    share = duty if lag is None or lag <= 2.0 else min(duty, min_duty)
    # working ``worked`` then pausing ``pause`` keeps archival within its share of the time
    assert worked <= share * (worked + pause) + 1e-9
    # and a lag never makes archival take more than when delivery keeps up
    assert pause >= pause_after(worked, None, t) - 1e-9


@pytest.mark.parametrize(
    ("duty", "min_duty", "pause", "lag"),
    [(0.0, 0.1, 0.0, 1.0), (0.5, 0.0, 0.0, 1.0), (1.5, 0.1, 0.0, 1.0), (0.5, 0.1, -1.0, 1.0)],
)
def test_nonsense_throttles_are_refused(
    duty: float, min_duty: float, pause: float, lag: float
) -> None:
    with pytest.raises(ValueError):
        Throttle(duty=duty, min_duty=min_duty, pause_s=pause, max_lag_s=lag)


def test_settings_read_the_throttle_from_the_environment() -> None:
    s = Settings.from_env(
        {
            "HOOKPROOF_ARCHIVE_DUTY": "0.3",
            "HOOKPROOF_ARCHIVE_MIN_DUTY": "0.1",
            "HOOKPROOF_ARCHIVE_MAX_LAG": "5",
            "HOOKPROOF_ARCHIVE_LOCK_WAIT_MS": "250",
            "HOOKPROOF_ARCHIVE_MAX_BEHIND": "30",
        }
    )
    assert (s.archive_duty, s.archive_min_duty, s.archive_max_lag_s) == (0.3, 0.1, 5.0)
    assert s.archive_max_behind_s == 30.0
    assert s.archive_lock_wait_ms == 250
    d = Settings.from_env({})
    assert (d.archive_duty, d.archive_min_duty, d.archive_max_lag_s) == (0.5, 0.5, 2.0)
    assert d.archive_lock_wait_ms == 100
    assert d.archive_max_behind_s == 120.0


@pytest.mark.parametrize("value", ["0", "1.5", "-0.2", "half"])
def test_a_duty_outside_zero_to_one_is_a_typed_error(value: str) -> None:
    with pytest.raises(ValidationError) as err:
        Settings.from_env({"HOOKPROOF_ARCHIVE_DUTY": value})
    assert "HOOKPROOF_ARCHIVE_DUTY" in str(err.value)
