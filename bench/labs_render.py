"""Server-side time to redraw the Positional-encoding and Scaling tabs after a control changes.

Each tab is rendered alone (a page that builds the ViewContext as app.py does and calls only that
tab's render), then one control is set to 5 new values in turn, each a rerun; the median of the 5
rerun times is printed. New values mean the cached computations for them are missed, as for a
student moving a slider. The whole page (app.py, every tab) is timed the same way. Not a test.

    .venv/bin/python bench/labs_render.py [--threads N] [--models paper-untrained minilm-l6]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import torch
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]

TEXT = "the small dog sees the old man ."
TAB_TITLES = {"positional": "Positional encoding", "scaling": "Scaling 1/√d_k"}
# (tab, widget kind, key, five new values)
CHANGES = [
    ("positional", "slider", "pos_n", [150, 200, 250, 300, 350]),
    ("positional", "slider", "pos_k", [2, 3, 4, 6, 7]),
    ("scaling", "select_slider", "scaling_dk", [1, 2, 4, 8, 16]),
    ("scaling", "slider", "scaling_n", [8, 24, 32, 48, 64]),
    ("scaling", "select_slider", "scaling_T", [0.25, 0.5, 4.0, 8.0, 2.0]),
]


def one_tab_page(tab: str, name: str, text: str) -> None:
    """A page with one lab tab only (the source of this function is the AppTest script)."""
    from ui import positional_tab, scaling_tab, state

    loaded = state.get_model(name)
    trace = state.get_trace(name, text)
    context = state.ViewContext(name, loaded, trace, text, "greedy", False)
    {"positional": positional_tab, "scaling": scaling_tab}[tab].render(context)


def median_rerun_ms(at: AppTest, widget: str, key: str, values: list) -> float:
    times = []
    for value in values:
        getattr(at, widget)(key=key).set_value(value)
        started = time.perf_counter()
        at.run()
        times.append((time.perf_counter() - started) * 1e3)
        if at.exception:
            raise RuntimeError(at.exception[0].value)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    parser.add_argument("--models", nargs="+", default=["paper-untrained", "minilm-l6"])
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"torch threads: {args.threads}; text: {TEXT!r}; median of 5 reruns, ms")
    for name in args.models:
        for tab, widget, key, values in CHANGES:
            at = AppTest.from_function(one_tab_page, args=(tab, name, TEXT), default_timeout=600)
            at.run()  # first draw: loads the model, fills the caches
            print(
                f"{name:16} {tab:11} tab alone, after {key:11} changes: "
                f"{median_rerun_ms(at, widget, key, values):8.0f}"
            )
        for tab, widget, key, values in CHANGES:
            at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
            at.query_params["model"] = name
            at.query_params["text"] = TEXT
            at.query_params["tab"] = TAB_TITLES[tab]  # the page runs only the open tab
            at.run()
            print(
                f"{name:16} whole page, after {key:11} changes:     "
                f"{median_rerun_ms(at, widget, key, values):8.0f}"
            )


if __name__ == "__main__":
    main()
