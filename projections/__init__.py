"""Projections: pure folds of the log into tables, the projector, rebuild."""

from .base import Projection, Row
from .projector import Projector, apply_events, read_checkpoint
from .rebuild import RebuildResult, fold_all, rebuild, table_rows
from .stream_catalogue import StreamCatalogue

__all__ = [
    "Projection",
    "Projector",
    "RebuildResult",
    "Row",
    "StreamCatalogue",
    "apply_events",
    "fold_all",
    "read_checkpoint",
    "rebuild",
    "table_rows",
]
