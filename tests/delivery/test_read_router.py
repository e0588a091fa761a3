"""The read router's pure parts: WAL positions as Postgres writes them, and that without a
standby every read is the primary's and no write position is read."""

from __future__ import annotations

import pytest

from hookproof.engine.standby import ReadRouter, ReadSide, format_lsn, parse_lsn
from hookproof.errors import ValidationError


def test_wal_positions_parse_compare_and_print_as_postgres_writes_them() -> None:
    assert parse_lsn("0/0") == 0
    assert parse_lsn("16/B374D848") == (0x16 << 32) | 0xB374D848
    assert parse_lsn("0/3000060") < parse_lsn("0/3000148") < parse_lsn("1/0")
    for text in ("0/0", "16/B374D848", "FFFFFFFF/FFFFFFFF"):
        assert format_lsn(parse_lsn(text)) == text
    for bad in ("", "nope", "1/", "/1", "1/2/3", "G/1", "123456789/0", " 0/0 x"):
        with pytest.raises(ValidationError) as err:
            parse_lsn(bad)
        assert err.value.code == "invalid_read_position"


async def test_without_a_standby_every_read_is_the_primarys() -> None:
    primary = ReadSide("primary", None, None, None, None)  # type: ignore[arg-type]
    router = ReadRouter(primary)
    assert not router.enabled
    assert await router.note_write("t_1") is None  # no position is read for nobody
    seen = []

    async def read(side: ReadSide) -> str:
        seen.append(side.name)
        return side.name

    assert await router.run("t_1", read, after=parse_lsn("FF/0")) == "primary"
    assert seen == ["primary"]
