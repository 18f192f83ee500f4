"""The `thinkpath` command line: one subcommand per job, each imported only when it runs.

Heavy libraries (litellm, gradio, mlflow) take seconds to import, so no subcommand's module is
imported until that subcommand is chosen.
"""

import argparse
import sys
from collections.abc import Callable, Sequence
from importlib import metadata

from engine.errors import ThinkPathError
from ui import ask_commands, experiment_commands, serve, store_commands, template_commands

Command = Callable[[argparse.Namespace], int]


def _version(_: argparse.Namespace) -> int:
    print(metadata.version("thinkpath"))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="thinkpath",
        description="ThinkPath: learn which reasoning path and tools work for which task.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    version = commands.add_parser("version", help="print the installed version")
    version.set_defaults(run=_version)
    ask_commands.register(commands)
    serve.register(commands)
    store_commands.register(commands)
    experiment_commands.register(commands)
    template_commands.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    run: Command = args.run
    try:
        return run(args)
    except ThinkPathError as error:  # a clear message, not a traceback, for expected failures
        print(f"thinkpath {args.command}: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
