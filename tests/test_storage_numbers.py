"""The storage outlook's numbers (pure): growth = the log's rate x bytes per event; what is
unknown is said, not guessed. The processes that print them: test_storage_outlook.py."""

from __future__ import annotations

from hookproof.engine.db.storage import MIN_EVENTS, LogWindow, TableSize, human_bytes, outlook


def test_growth_is_the_rate_times_the_bytes_per_event() -> None:
    tables = [TableSize("events", 6_000_000, 4_000_000, 1_500_000), TableSize("x", 4_000_000, 0, 0)]
    seen = outlook(tables, LogWindow(events=10_000, seconds=250.0, rows=100_000), None)
    assert seen.table_bytes == 10_000_000
    assert seen.bytes_per_event == 100.0
    assert seen.events_per_s == 40.0
    assert seen.growth_bytes_per_s == 4_000.0
    assert seen.growth_bytes_per_day == 4_000.0 * 86_400
    assert seen.hot_bytes_at_retention is None  # retention off: no plateau
    assert seen.log_fields()["retention"] == "off"
    kept = outlook(tables, LogWindow(events=10_000, seconds=250.0, rows=100_000), 7.0)
    assert kept.hot_bytes_at_retention == 4_000.0 * 86_400 * 7
    assert kept.to_json()["retention"] == {
        "enabled": True,
        "days": 7.0,
        "hotBytesAtRetention": 4_000.0 * 86_400 * 7,
    }


def test_unknown_is_said_not_guessed() -> None:
    tables = [TableSize("events", 800_000, 8_192, 16_384)]
    empty = outlook(tables, None, None)
    assert (empty.events_per_s, empty.bytes_per_event, empty.growth_bytes_per_day) == (
        None,
        None,
        None,
    )
    few = outlook(tables, LogWindow(events=5, seconds=10.0, rows=MIN_EVENTS - 1), None)
    assert few.events_per_s == 0.5
    assert few.bytes_per_event is None  # the empty schema would outweigh the data
    assert few.growth_bytes_per_s is None
    burst = outlook(tables, LogWindow(events=10, seconds=0.01, rows=MIN_EVENTS), None)
    assert burst.events_per_s == 10.0  # at least a second of window


def test_human_bytes() -> None:
    assert human_bytes(512) == "512 B"
    assert human_bytes(1536) == "1.5 KiB"
    assert human_bytes(3.4 * 2**30) == "3.4 GiB"
    assert human_bytes(None) == "unknown"
