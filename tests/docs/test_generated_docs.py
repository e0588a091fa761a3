"""The state diagrams in docs/ are drawn from the transition tables and must stay current."""

from pathlib import Path

from hookproof.engine.cli.docs import render

ROOT = Path(__file__).resolve().parents[2]


def test_state_machine_doc_is_current() -> None:
    assert (ROOT / "docs" / "state-machines.md").read_text() == render(), (
        "run: python -m hookproof.engine.cli.docs"
    )


def test_egress_connection_machine_is_drawn() -> None:
    from hookproof.engine.egress.machine import diagram

    text = (ROOT / "docs" / "state-machines.md").read_text()
    assert "## Egress connection (`engine/egress/machine.py`)" in text
    assert diagram() in text
