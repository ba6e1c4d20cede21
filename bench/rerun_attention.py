"""How fast the Attention tab redraws, and how large its figures are.

1. Server-side time of a Streamlit rerun (AppTest) after changing the layer or the head, for a
   30-token MiniLM text: the model does not run again, so this is drawing only. Target <= 150 ms.
2. Bytes of each view's figure JSON (what the browser receives) for a 30- and a 512-token text.

Run: .venv/bin/python bench/rerun_attention.py [--reruns 12]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import plotly.io as pio
import torch

from runtime import registry
from runtime.trace import run
from viz.attention import heatmap, overview
from viz.breakdown import breakdown_figure
from viz.links import links_figure

ROOT = Path(__file__).resolve().parents[1]

SENTENCE = "The students watched the lecturer draw attention maps on the board, and each of them "
SENTENCE += (
    "asked her which head looked at the previous word first today."  # 30 tokens with [CLS], [SEP]
)
LONG_TEXT = " ".join([SENTENCE] * 30)  # cut to MiniLM's 512 tokens


def rerun_times(reruns: int) -> dict[str, float]:
    """Median rerun time of the whole page, and of the Attention tab's own render within it."""
    from streamlit.testing.v1 import AppTest

    from ui import attention_tab

    tab_times: list[float] = []
    render = attention_tab.render

    def timed_render(ctx):  # app.py looks render up on every run, so this wrapper is used
        started = time.perf_counter()
        keys = render(ctx)
        tab_times.append((time.perf_counter() - started) * 1e3)
        return keys

    attention_tab.render = timed_render

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params["model"] = "minilm-l6"
    at.query_params["text"] = SENTENCE
    at.run()  # loads the model and makes the Trace once
    assert not at.exception, at.exception
    tokens = len(run(registry.load("minilm-l6", torch.device("cpu")), SENTENCE).source_tokens)
    print(f"text: {tokens} tokens")
    results = {}
    for what, key, values in (("layer", "layer", (1, 2)), ("head", "head", (3, 4))):
        widget = at.select_slider(key=key) if key == "layer" else at.selectbox(key=key)
        times = []
        tab_times.clear()
        for i in range(reruns):
            widget.set_value(values[i % 2])
            started = time.perf_counter()
            at.run()
            times.append((time.perf_counter() - started) * 1e3)
            assert not at.exception, at.exception
            widget = at.select_slider(key=key) if key == "layer" else at.selectbox(key=key)
        results[what] = statistics.median(times)
        print(
            f"rerun after changing the {what}: median {results[what]:.0f} ms of {reruns} for "
            f"the whole page (all tabs), of which the Attention tab "
            f"{statistics.median(tab_times):.0f} ms"
        )
    return results


def figure_sizes() -> None:
    loaded = registry.load("minilm-l6", torch.device("cpu"))
    for label, text in (("30-token", SENTENCE), ("512-token", LONG_TEXT)):
        trace = run(loaded, text)
        kind = "encoder_self"
        figures = {
            "heatmap (one head)": heatmap(trace, kind, 0, 0, loaded.label),
            "overview (6×12)": overview(trace, kind, loaded.label),
            "links (all 12 heads)": links_figure(trace, kind, 0, list(range(12))),
            "breakdown": breakdown_figure(trace, kind, 0, 0, 1),
        }
        print(f"{label} text ({len(trace.source_tokens)} tokens), figure JSON:")
        for name, fig in figures.items():
            size = len(pio.to_json(fig, validate=False).encode())
            print(f"  {name:22s} {size / 1024:8.1f} KiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reruns", type=int, default=12)
    args = parser.parse_args()
    figure_sizes()
    rerun_times(args.reruns)


if __name__ == "__main__":
    main()
