"""`compose.warm_up`: what a first answer would load is loaded before anyone asks."""

import subprocess
import sys
from pathlib import Path

# In a fresh process: the unit libraries load only where a tool that reads with them is allowed.
_PROBE = """
import sys
from engine.compose import warm_up
from engine.settings import load_settings

class Embedder:
    dimension = 3
    texts = []
    def embed(self, texts):
        self.texts.extend(texts)
        return [[0.0, 0.0, 1.0] for _ in texts]

parser = "quantulum3._lang.en_US.parser"
embedder = Embedder()
warm_up(load_settings(tools=["text", "numbers"]), embedder)
print(parser in sys.modules, len(embedder.texts))
warm_up(load_settings(tools=["calculator"]), embedder)
print(parser in sys.modules, len(embedder.texts))
"""


def test_warm_up_loads_the_unit_libraries_for_the_tools_that_read_with_them_and_embeds() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        cwd=Path(__file__).parents[3],
    )
    assert done.returncode == 0, done.stderr
    # Text and numbers load nothing; the calculator's rate word problems read with pint.
    assert done.stdout.split("\n")[:2] == ["False 1", "True 2"]
