"""`thinkpath store ...`: inspect, rebuild, export and import the learning state.

    thinkpath store stats   [--namespace NS]   the live statistics per arm
    thinkpath store rebuild                    recompute them from the outcomes (exit 1 if they
                                               disagreed: the rebuilt ones now replace them) and
                                               drop learner checkpoints (the next start replays)
    thinkpath store export  FILE.jsonl         the whole learning state, as JSON lines
    thinkpath store import  FILE.jsonl         into this store, all or nothing (idempotent)

The store is `--url` if given, else $THINKPATH_STORE_URL, else the SQLite file under
$THINKPATH_HOME (default ~/.thinkpath): the settings say which, and the composition root
(`engine.compose.build_sql_store`) opens it. SQLAlchemy loads only when a store command runs,
so the rest of the CLI starts as fast as before.
"""

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import StoreError

if TYPE_CHECKING:
    from engine import SqlStore


def register(subparsers: Any) -> None:
    """Add the `store` command and its subcommands to the CLI's subparsers."""
    store = subparsers.add_parser("store", help="inspect, rebuild, export or import the store")
    store.add_argument("--url", help="the store's database URL (default: the local SQLite file)")
    actions = store.add_subparsers(dest="store_action", required=True, metavar="ACTION")
    stats = actions.add_parser("stats", help="print the live statistics per arm")
    stats.add_argument("--namespace", help="only this namespace")
    stats.set_defaults(run=_stats)
    rebuild = actions.add_parser("rebuild", help="recompute every statistic from the outcomes")
    rebuild.set_defaults(run=_rebuild)
    export = actions.add_parser("export", help="write the learning state to a JSON-lines file")
    export.add_argument("path", type=Path)
    export.set_defaults(run=_export)
    load = actions.add_parser("import", help="read a JSON-lines export into the store")
    load.add_argument("path", type=Path)
    load.set_defaults(run=_import)


def _open(args: argparse.Namespace, *, create: bool = False) -> "SqlStore":
    """The store this command works on: --url, else the settings' (see the module docstring)."""
    from engine.compose import build_sql_store  # noqa: PLC0415 - SQLAlchemy only when a command runs
    from engine.settings import load_settings  # noqa: PLC0415

    settings = load_settings(store_url=args.url) if args.url else load_settings()
    return build_sql_store(settings, create=create)


def _stats(args: argparse.Namespace) -> int:
    return _guarded(_print_stats, args)


def _print_stats(args: argparse.Namespace) -> int:
    with _open(args) as store:
        rows = store.arm_statistics(args.namespace)
    print(f"{'namespace':<16} {'role':<6} {'arm':<28} {'pulls':>10} {'mean':>7} {'outcomes':>9}")
    for row in rows:
        mean = "-" if row.tally.mean is None else f"{row.tally.mean:.3f}"
        print(
            f"{row.namespace:<16} {row.role:<6} {row.arm_id:<28} {row.tally.pulls:>10.2f} "
            f"{mean:>7} {row.tally.outcomes:>9}"
        )
    return 0


def _rebuild(args: argparse.Namespace) -> int:
    return _guarded(_run_rebuild, args)


def _run_rebuild(args: argparse.Namespace) -> int:
    with _open(args) as store:
        report = store.rebuild_statistics()
    print(f"rebuilt {report.rows} statistics from {report.outcomes} outcomes")
    if report.checkpoints_dropped:
        print(f"dropped {report.checkpoints_dropped} learner checkpoints: engines replay the log")
    if report.agrees:
        print("the live statistics agreed with the outcomes")
        return 0
    for live, rebuilt in report.mismatches:
        print(f"  differed: live {live} / rebuilt {rebuilt}")
    print(f"{len(report.mismatches)} statistics differed and were replaced by the rebuilt ones")
    return 1


def _export(args: argparse.Namespace) -> int:
    return _guarded(_run_export, args)


def _run_export(args: argparse.Namespace) -> int:
    with _open(args) as store:
        counts = store.export_jsonl(args.path)
    print(
        f"exported {counts.arms} arms, {counts.decisions} decisions and {counts.outcomes} "
        f"outcomes to {args.path}"
    )
    return 0


def _import(args: argparse.Namespace) -> int:
    return _guarded(_run_import, args)


def _run_import(args: argparse.Namespace) -> int:
    with _open(args, create=True) as store:
        counts = store.import_jsonl(args.path)
    print(
        f"imported {counts.arms} arms, {counts.new_decisions} new of {counts.decisions} "
        f"decisions and {counts.new_outcomes} new of {counts.outcomes} outcomes"
    )
    return 0


def _guarded(command: Any, args: argparse.Namespace) -> int:
    try:
        result: int = command(args)
    except StoreError as error:
        print(f"thinkpath store: error: {error}", file=sys.stderr)
        return 2
    return result
