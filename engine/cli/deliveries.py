"""``hookproof deliveries recover``: bring back a window of failures (operator, any tenant)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from hookproof.config import Settings

from .context import Context
from .help import add_command

__all__ = ["register"]


async def cmd_deliveries_recover(args: argparse.Namespace, settings: Settings) -> int:
    async with Context(settings) as ctx:
        result = await ctx.recovery().recover(
            args.subscription,
            tenant_id=None,
            since=args.since,
            until=args.until,
            states=args.states or None,
            limit=args.limit,
            actor="operator:cli",
        )
    if args.json:
        print(json.dumps(result.view()))
    else:
        print(f"recovered {result.recovered} delivery(ies) of {args.subscription}")
        for did in result.delivery_ids:
            print(f"  {did}")
        if result.next_since:
            print(f"more remain: run again with --since {result.next_since}")
    return 0


def register(
    sub: argparse._SubParsersAction,  # type: ignore[type-arg]
    add_json: Callable[[argparse.ArgumentParser], None],
) -> None:
    deliveries = add_command(sub, "deliveries", help="delivery operations")
    dsub = deliveries.add_subparsers(dest="deliveries_cmd", required=True)
    p = add_command(
        dsub, "recover", help="send a subscription's failed deliveries in a time range again"
    )
    p.add_argument("--subscription", required=True, help="subscription id")
    p.add_argument("--since", required=True, help="RFC 3339 time (inclusive)")
    p.add_argument("--until", default=None, help="RFC 3339 time (exclusive; default: now)")
    p.add_argument("--states", nargs="*", default=None, help="ledger states (default: DEAD_LETTER)")
    p.add_argument("--limit", type=int, default=None, help="at most this many (max 10000)")
    add_json(p)
    p.set_defaults(handler=cmd_deliveries_recover)
