"""`thinkpath templates ...`: list the templates and retire one, on the configured store.

    thinkpath templates list                            every template, live or retired
    thinkpath templates retire ARM_ID --reason TEXT     stop choosing it; its record stays

They work on the engine that `thinkpath serve` would build (the same $THINKPATH_* settings, the
same store), so a retirement made here holds for every process sharing that store from its next
refresh on. Neither command runs the language model.
"""

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine import Engine


def register(subparsers: Any) -> None:
    """Add the `templates` command and its subcommands to the CLI's subparsers."""
    templates = subparsers.add_parser("templates", help="list or retire reasoning-path templates")
    actions = templates.add_subparsers(dest="templates_action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="every template with its state and statistics")
    listing.set_defaults(run=_list)
    retire = actions.add_parser(
        "retire", help="stop choosing a template for good; its statistics and history stay"
    )
    retire.add_argument("arm_id", help="the template's id, as `templates list` shows it")
    retire.add_argument("--reason", required=True, help="why, kept with its record")
    retire.set_defaults(run=_retire)


def _engine() -> "Engine":
    from engine.compose import build_engine  # noqa: PLC0415 - the engine only when a command runs

    return build_engine()  # the model loads on its first call, and these commands make none


def _list(_: argparse.Namespace) -> int:
    engine = _engine()
    stats = {row.arm_id: row for row in engine.arms() if row.role == "path"}
    print(f"{'template':32} {'state':8} {'pulls':>8} {'mean':>6}  reason")
    for path in engine.templates():
        row = stats.get(path.arm_id)
        state = "retired" if row is not None and row.retired else "live"
        pulls = f"{row.pulls:8.1f}" if row is not None else f"{0.0:8.1f}"
        mean = (
            f"{row.mean_reward:6.2f}"
            if row is not None and row.mean_reward is not None
            else "     -"
        )
        reason = (row.retired_reason or "") if row is not None else ""
        print(f"{path.arm_id:32} {state:8} {pulls} {mean}  {reason}")
    return 0


def _retire(args: argparse.Namespace) -> int:
    row = _engine().retire_template(args.arm_id, args.reason)
    print(
        f"retired {row.arm_id} ({row.retired_reason}); its {row.outcomes} outcomes and "
        f"{row.pulls:.1f} pulls stay in its record"
    )
    return 0
