"""The selectors several tabs share: attention kind, layer and head (optionally "mean over
heads"), each mirrored in the URL under the key the tab declares (`ui.url.UrlKey`).

Each `seed_*` gives the key its value from the URL, valid for this run's model; each selector
seeds and draws. A tab that keeps a choice for a view without its selector (the Attention
tab's layer in the model overview) seeds it without drawing it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import streamlit as st

from runtime.loaded import LoadedModel, held_out_best_head, is_language_model, supervised_head
from viz.attention import head_label
from viz.style import KIND_LABELS

from .url import UrlKey, counted

HEAD_MEAN = -1  # the "mean over heads" choice in a head selector
# Widths of a row of kind, layer and head selectors. The kind column is the widest: a select box
# cuts its chosen option without an ellipsis, and "encoder-decoder (cross) attention" needs
# 214 px of text at 1280 px (tests/e2e/test_layout.py measures it).
HEAD_ROW_COLUMNS = [5, 2, 3]

# The Attention and Compare tabs' head, shared: a head chosen in one opens in the other.
KIND = UrlKey("kind")
LAYER = counted("layer")


def parse_head_choice(raw: str) -> int:
    """A head counted from 1, or "mean" for the mean over heads."""
    return HEAD_MEAN if raw == "mean" else int(raw) - 1


def head_choice_text(value: int) -> str:
    return "mean" if value == HEAD_MEAN else str(value + 1)


HEAD = UrlKey("head", parse_head_choice, text=head_choice_text)


# Above this best alignment error rate over the held-out set, no cross-attention head aligns:
# uniform rows score about 0.9 on corpus v2's sentences.
FLAT_AER = 0.5

Head = tuple[str, int, int]  # an attention kind, a layer and a head (0-based)


def opening_head(loaded: LoadedModel) -> Head | None:
    """The head the Attention and Compare tabs open on where a model has one worth opening on:
    a translator's cross-attention head that lines German up with English, the picture the
    paper is famous for (issue 66, item 4: it was three actions away). None: the first kind's
    layer 1, head 1."""
    best = held_out_best_head(loaded)
    if best is None or best.aer > FLAT_AER:
        return None
    return ("cross", best.layer, best.head)


def first_view(loaded: LoadedModel) -> Head:
    """The kind, layer and head a model's page opens on: `opening_head`, else its first kind's
    layer 1, head 1 (a language model has decoder self-attention only; the others begin with
    the encoder's)."""
    first = "decoder_self" if is_language_model(loaded) else "encoder_self"
    return opening_head(loaded) or (first, 0, 0)


def why_this_head(loaded: LoadedModel, presentation: bool = False) -> str | None:
    """What the opening head's figure shows and why this head, at the top of the explanation
    beside it (above the figure it pushed the figure's last rows off the first screen, at
    1280×800 and on a lecture screen); on a lecture screen the short of it."""
    best = held_out_best_head(loaded)
    if opening_head(loaded) is None or best is None:
        return None
    said = (
        f"**Why this head:** it lines each German word (row) up with the English it translates "
        f"(AER {best.aer:.3f}; 0 = every link right)"
    )
    if presentation:
        return said + "."
    said += (
        f", the best of all heads over {best.sentences} held-out sentences: its strongest "
        "links match the word alignment a person would draw."
    )
    if supervised_head(loaded) == (best.layer, best.head):
        said += " Training pulled it towards that alignment; the Model tab compares the others."
    return said


def seed_kind(key: UrlKey, kinds: list[str], default: str | None = None) -> None:
    key.seed(default if default in kinds else kinds[0], valid=lambda v: v in kinds)


def seed_layer(key: UrlKey, n_layers: int, default: int = 0) -> None:
    key.seed(default, valid=lambda v: 0 <= v < n_layers)


def seed_head(key: UrlKey, n_heads: int, mean: bool = False, default: int = 0) -> None:
    key.seed(default, valid=lambda v: (mean and v == HEAD_MEAN) or 0 <= v < n_heads)


def kind_selector(
    where, key: UrlKey, kinds: list[str], label: str = "Attention kind", default: str | None = None
) -> str:
    seed_kind(key, kinds, default)
    return where.selectbox(label, kinds, format_func=KIND_LABELS.get, key=key.name)


def layer_selector(
    where, key: UrlKey, n_layers: int, label: str = "Layer", default: int = 0
) -> int:
    """A slider over the layers, shown from 1."""
    seed_layer(key, n_layers, default)
    return where.select_slider(
        label, options=list(range(n_layers)), format_func=lambda i: str(i + 1), key=key.name
    )


def head_selector(where, key: UrlKey, n_heads: int, mean: bool = False, default: int = 0) -> int:
    """A select box of the heads, shown from 1; with `mean`, HEAD_MEAN first. A view that
    needs one head (mean=False) turns a mean chosen elsewhere into head 1."""
    seed_head(key, n_heads, mean, default)
    options = ([HEAD_MEAN] if mean else []) + list(range(n_heads))
    return where.selectbox(
        "Head",
        options,
        format_func=lambda h: head_label(None if h == HEAD_MEAN else h),
        key=key.name,
    )


def head_row(
    trace,
    kinds: list[str] | None = None,
    head_choice: str = "one",
    layer_choice: bool = True,
    keys: tuple[UrlKey, UrlKey, UrlKey] = (KIND, LAYER, HEAD),
    opening: Head | None = None,
    stacked_in=None,
):
    """A row of kind, layer and head selectors over `keys` (by default the KIND, LAYER and HEAD
    the Attention and Compare tabs share). `kinds` are the kinds offered (the trace's by
    default); with one, it is chosen without a selector. head_choice is "one", "one_or_mean" or
    "none". Views of every layer at once have no layer choice (layer_choice=False): the layer
    is then None. `opening` is what the selectors hold until the reader or a link chooses
    (`opening_head`); else the first kind's layer 1, head 1. `stacked_in`: a container (a
    column beside the figure) to put the selectors in one under another instead of a row."""
    kind_key, layer_key, head_key = keys
    kinds = list(trace.kinds) if kinds is None else kinds
    shown = [len(kinds) > 1, layer_choice, head_choice != "none"]
    if stacked_in is not None:
        columns = itertools.repeat(stacked_in)
    else:
        # The selectors shown keep their widths, packed to the left; a spacer takes the rest.
        widths = [width for width, on in zip(HEAD_ROW_COLUMNS, shown) if on]
        spare = sum(HEAD_ROW_COLUMNS) - sum(widths)
        columns = iter(st.columns(widths + [spare] if spare else widths))
    first_kind, first_layer, first_head = opening or (kinds[0], 0, 0)
    kind, layer, head = kinds[0], None, None
    if shown[0]:
        kind = kind_selector(next(columns), kind_key, kinds, default=first_kind)
    if shown[1]:
        layer = layer_selector(next(columns), layer_key, trace.n_layers, default=first_layer)
    if shown[2]:
        head = head_selector(
            next(columns),
            head_key,
            trace.n_heads,
            mean=head_choice == "one_or_mean",
            default=first_head,
        )
    return kind, layer, head


def statistic_selector(where, key: UrlKey, offered: list[str], label_of) -> str:
    """A select box of the statistics (table columns) a layer × head chart can show."""
    key.seed(offered[0], valid=lambda v: v in offered)
    return where.selectbox(
        "Statistic for the layer × head chart", offered, format_func=label_of, key=key.name
    )


def url_radio(where, label: str, key: UrlKey, options: Mapping[str, str], default: str) -> str:
    """A row of radio buttons over `options` (value -> what the page says), the choice kept in
    the URL under `key` (`default` where the URL has none or one not offered)."""
    key.seed(default, valid=lambda v: v in options)
    return where.radio(label, list(options), format_func=options.get, key=key.name, horizontal=True)
