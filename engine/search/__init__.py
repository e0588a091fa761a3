"""Search over deliveries and events with the filter languages, and bulk replay as a job
(issue 54): :mod:`.search` (pages, bounded), :mod:`.pushdown` (the filters' equalities for the
indexes), :mod:`.query` (a checked search), :mod:`.replay` (the job)."""

from .query import SearchQuery, query_digest
from .replay import REPLAY_ID, Replays, ReplayTooLarge
from .search import Search, SearchTooBroad

__all__ = [
    "REPLAY_ID",
    "ReplayTooLarge",
    "Replays",
    "Search",
    "SearchQuery",
    "SearchTooBroad",
    "query_digest",
]
