"""Measurement 8: gradient attributions of a translation (runtime/attribution.py), the times the
"Attention vs gradients" tab waits for: saliency, input × gradient, and integrated gradients at
32 and 64 points, for a 15-token sentence and the translation the model writes for it, all
rows at once; and what the tab computes before it draws the chosen German token's row: the
two fast methods and integrated gradients of that token's block of rows (ui.attribution_tab).
Interleaved, so a slow spell of the shared machine hits every method alike.
"""

from __future__ import annotations

import torch

from runtime import registry
from runtime.attribution import attribute
from runtime.trace import run
from ui.attribution_tab import ROWS_PER_CALL

from .timing import interleaved

# 15 source tokens for the shipped translator (checked in `attribution`)
SENTENCE = "The old man didn't see the small dog because it was in the garden."


def attribution(repeats: int) -> dict:
    loaded = registry.load("en-de", torch.device("cpu"))
    trace = run(loaded, SENTENCE)
    first_block = range(ROWS_PER_CALL)
    calls = {
        "saliency": lambda: attribute(loaded, trace, "saliency"),
        "input × gradient": lambda: attribute(loaded, trace, "input_x_gradient"),
        "integrated gradients, 32 points": lambda: attribute(
            loaded, trace, "integrated_gradients", 32
        ),
        "integrated gradients, 64 points": lambda: attribute(
            loaded, trace, "integrated_gradients", 64
        ),
        # the tab's first figure: one German token's row of every method (32 points)
        "chosen token first: saliency, input × gradient, its block of integrated gradients": (
            lambda: (
                attribute(loaded, trace, "saliency"),
                attribute(loaded, trace, "input_x_gradient"),
                attribute(loaded, trace, "integrated_gradients", 32, rows=first_block),
            )
        ),
    }
    return {
        "sentence": SENTENCE,
        "source_tokens": len(trace.source_tokens),
        "target_tokens": len(trace.output_ids),
        "stats": interleaved(calls, repeats=repeats),
    }
