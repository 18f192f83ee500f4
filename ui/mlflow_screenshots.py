"""Screenshots of `thinkpath experiments ui` for the docs, taken as a user would see it.

    python -m ui.mlflow_screenshots --out docs/screenshots

It runs the real commands in a fresh data directory (or `--home`): `thinkpath experiments run
drift-abrupt` with a few policies (seconds, no model), then `thinkpath experiments ui` on a free
loopback port, and opens the bare address in Debian's headless Chromium (driven by Playwright,
no browser downloaded): the page it lands on, and the chart view that overlays the contenders'
curves, one colour per policy. Each picture is checked before it is written: the address landed
on the project's experiment, every policy is listed, the chart view draws the curves. Nothing
leaves the machine (`headless_browser.QUIET_FLAGS`, MLflow's telemetry off). Playwright is a
development dependency (in requirements.lock, beside the browser test), imported only here.
"""

import argparse
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ui.headless_browser import CHROMIUM, QUIET_FLAGS
from ui.local_server import free_port, wait_until_healthy

if TYPE_CHECKING:
    from playwright.sync_api import Page

__all__ = [
    "CHARTED",
    "DEMO_POLICIES",
    "experiments_ui",
    "log_demo_experiment",
    "main",
    "take_screenshots",
]

DEMO_POLICIES = ("thompson", "glr_thompson", "ucb1", "epsilon_greedy", "random")
DEMO_SETTINGS = ("seeds=5", "horizon=1000", "peers=")
PAGE_LIMIT_MS = 120_000
MAX_PNG_BYTES = 300_000  # the docs' pictures stay small
# The first chart's runs (plotly's traces; MLflow draws each one twice) and line colours.
CHARTED = """() => {
  const plot = document.querySelector(".js-plotly-plot");
  const names = [...new Set(plot.data.map((trace) => trace.name))];
  const colours = [...plot.querySelectorAll("path.js-line")].map((line) => line.style.stroke);
  return [names, [...new Set(colours)]];
}"""


def _thinkpath(*args: str) -> list[str]:
    """The `thinkpath` command line, run from this interpreter (no PATH lookup)."""
    return [sys.executable, "-m", "ui.cli", *args]


def log_demo_experiment(home: Path) -> None:
    """Run the demo experiment into `home`'s MLflow store, as `thinkpath experiments run` does."""
    settings = [item for setting in DEMO_SETTINGS for item in ("--set", setting)]
    command = _thinkpath(
        "experiments",
        "run",
        "drift-abrupt",
        "--home",
        str(home),
        "--no-progress",
        "--set",
        "policies=" + ",".join(DEMO_POLICIES),
        *settings,
    )
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)  # our own argv, no shell


@contextmanager
def experiments_ui(home: Path) -> Iterator[str]:
    """`thinkpath experiments ui` on `home`, on a free loopback port: its base address."""
    port = free_port()
    log_path = home / "experiments-ui.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(
            _thinkpath("experiments", "ui", "--home", str(home), "--port", str(port)),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until_healthy(f"{url}/health", server, log_path, what="thinkpath experiments ui")
            yield url
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:  # a busy machine: stop it for sure
                server.kill()
                server.wait(timeout=30)


def _landing(page: "Page", url: str, out: Path, name: str, *, fold_sidebar: bool = False) -> str:
    """Open the bare address as a new user would; check where it landed; save the picture."""
    from playwright.sync_api import expect  # noqa: PLC0415 - a development dependency

    page.goto(url)
    expect(page.get_by_text("matching runs").first).to_be_visible(timeout=PAGE_LIMIT_MS)
    landed = page.url
    if not re.search(r"#/experiments/\d+/runs\?", landed):
        raise RuntimeError(f"the bare address landed on {landed}, not on an experiment's runs")
    for policy in DEMO_POLICIES:  # the parent run is opened out: every contender is listed
        expect(page.get_by_text(policy, exact=True).first).to_be_visible(timeout=PAGE_LIMIT_MS)
    if fold_sidebar:  # MLflow's sidebar keeps its width on a phone: fold it as a user would
        page.get_by_role("button", name="Toggle sidebar").click()
        page.wait_for_timeout(500)
    page.screenshot(path=str(out / name))
    return landed


def _curves(page: "Page", landed: str, out: Path, name: str) -> None:
    """The chart view of the same page: the contenders' curves, one colour each."""
    from playwright.sync_api import expect  # noqa: PLC0415

    page.goto(f"{landed}&compareRunsMode=CHART")  # the toolbar's chart button, as a link
    expect(page.get_by_text("cumulative_regret", exact=True).first).to_be_visible(
        timeout=PAGE_LIMIT_MS
    )
    # the first chart is cumulative_regret: one line per contender, each its own colour
    page.locator(".js-plotly-plot path.js-line").first.wait_for(timeout=PAGE_LIMIT_MS)
    page.wait_for_timeout(1_000)  # plotly's transition: the picture shows the settled lines
    names, colours = page.evaluate(CHARTED)
    if sorted(names) != sorted(DEMO_POLICIES) or len(colours) != len(DEMO_POLICIES):
        raise RuntimeError(f"the regret chart draws {names} in {len(colours)} colours")
    page.screenshot(path=str(out / name))


def take_screenshots(home: Path, out: Path, *, narrow: bool = True) -> list[Path]:
    """Start `thinkpath experiments ui` on `home` and save its pictures in `out`."""
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    out.mkdir(parents=True, exist_ok=True)
    with experiments_ui(home) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=QUIET_FLAGS)
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            landed = _landing(page, url, out, "mlflow-landing.png")
            _curves(page, landed, out, "mlflow-curves.png")
            names = ["mlflow-landing.png", "mlflow-curves.png"]
            if narrow:
                page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
                _landing(page, url, out, "mlflow-landing-390.png", fold_sidebar=True)
                names.append("mlflow-landing-390.png")
        finally:
            browser.close()
    written = [out / name for name in names]
    for path in written:
        if path.stat().st_size > MAX_PNG_BYTES:
            raise RuntimeError(f"{path} is {path.stat().st_size:,} bytes, over {MAX_PNG_BYTES:,}")
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ui.mlflow_screenshots",
        description=(
            "Log a small drift-abrupt experiment (policies "
            + ", ".join(DEMO_POLICIES)
            + ") and take screenshots of `thinkpath experiments ui` on it in headless Chromium: "
            "the page the bare address lands on, and the chart view of the policies' curves."
        ),
    )
    parser.add_argument(
        "--out", type=Path, default=Path("docs/screenshots"), help="where the PNGs go"
    )
    parser.add_argument(
        "--home",
        type=Path,
        help="data directory to log into and serve (default: a fresh temporary one)",
    )
    parser.add_argument("--no-narrow", action="store_true", help="skip the 390 px picture")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"no Chromium at {CHROMIUM}: `apt-get install chromium` (scripts/test does)")
        return 2
    with tempfile.TemporaryDirectory(prefix="thinkpath-shots-") as fresh:
        home = args.home or Path(fresh)
        log_demo_experiment(home)
        for path in take_screenshots(home, args.out, narrow=not args.no_narrow):
            print(f"{path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
