"""`python -m experiments.bigbench rebuild --sdist PATH`: rebuild (or check) the pinned sample."""

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.errors import ConfigError
from experiments.bigbench.sample import PINNED, SAMPLE_DIR, build_sample


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.bigbench",
        description="The pinned BIG-bench sample of the online evaluation (development families).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    rebuild = commands.add_parser(
        "rebuild",
        help="rebuild the sample from the bigbench sdist",
        description=(
            f"Rebuild the sample from {PINNED.filename} (sha256 {PINNED.sha256}, from "
            f"{PINNED.url}; e.g. `pip download --no-deps --no-binary :all: "
            f"bigbench=={PINNED.version}`). A file with another sha256 is refused. The same "
            "sdist always gives byte-identical files."
        ),
    )
    rebuild.add_argument("--sdist", type=Path, required=True, help="path to the .tar.gz")
    rebuild.add_argument(
        "--out", type=Path, default=SAMPLE_DIR, help=f"folder to write (default {SAMPLE_DIR})"
    )
    rebuild.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 unless the files in --out equal the rebuilt ones",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; 0 on success, 1 on a failed check, 2 on bad input."""
    args = _parser().parse_args(argv)
    try:
        files = build_sample(args.sdist)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.check:
        differ = [
            name
            for name, content in files.items()
            if not (args.out / name).is_file() or (args.out / name).read_bytes() != content
        ]
        for name in differ:
            print(f"differs: {args.out / name}", file=sys.stderr)
        return 1 if differ else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (args.out / name).write_bytes(content)
        print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
