"""The Gradio playground: ask, score, watch the arms learn, edit templates, simulate policies.

One module per concern: `actions` (the handlers, testable without a browser), `views` (the result
card, cost and trace table), `figures` (posteriors, rewards, regret) and `page` (the tabs and their
wiring).
"""

from ui.playground.actions import ARM_COLUMNS, Actions, ArmsView, AskView
from ui.playground.page import PLAYGROUND_CSS, build_playground

__all__ = [
    "ARM_COLUMNS",
    "PLAYGROUND_CSS",
    "Actions",
    "ArmsView",
    "AskView",
    "build_playground",
]
