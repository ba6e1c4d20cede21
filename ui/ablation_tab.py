"""The Ablation tab: switch heads off and compare the run with the intact model's.

The switched-off heads are a per-call setting of the run (RunSettings.ablate, passed through
state.get_trace); the shared model is never modified. They are mirrored in the URL as one compact
string, e.g. ablate=encoder_self:1:2,cross:6:4 (kind:layer:head, counted from 1 as on screen).
"""

from __future__ import annotations

import re

import numpy as np
import streamlit as st

from runtime.trace import Trace
from viz.ablation import (
    attention_change,
    attention_difference,
    change_grid,
    comparable_rows,
    difference_figure,
    short_head_label,
    similarity_figure,
    step_comparison,
)
from viz.style import KIND_LABELS

from . import controls, state, tables
from .url import UrlKey

ABLATE = UrlKey("ablate")  # the heads switched off, as format_ablation writes them
ABLATION_KIND = UrlKey("ablation_kind")
_INDEX = re.compile(r"[0-9]{1,4}")  # ASCII digits only: int() would also take "٣" or " 3"

Head = tuple[str, int, int]

HELP = (
    "Switching a head off replaces its output by zeros before the output projection W^O "
    "(Section 3.2.2 of the paper); everything else runs as before. The head's own attention "
    "pattern is still computed, so its layer shows no change in attention: the effect appears in "
    "the layers after it, and in the decoder's output."
)


def parse_ablation(raw: str, trace: Trace) -> tuple[Head, ...]:
    """ "kind:layer:head,..." (counted from 1) -> the valid heads of this Trace's model, as
    indices from 0, sorted; anything else in the string (unknown kinds, out-of-range numbers,
    stray text) is ignored."""
    heads = set()
    for item in str(raw).split(","):
        parts = item.strip().split(":")
        if len(parts) != 3 or parts[0] not in trace.kinds:
            continue
        kind, layer, head = parts
        if not (_INDEX.fullmatch(layer) and _INDEX.fullmatch(head)):
            continue
        layer, head = int(layer) - 1, int(head) - 1
        if 0 <= layer < trace.n_layers and 0 <= head < trace.n_heads:
            heads.add((kind, layer, head))
    return tuple(sorted(heads))


def format_ablation(heads: tuple[Head, ...]) -> str:
    """The heads (indices from 0) as the URL holds them, counted from 1 as on screen."""
    return ",".join(f"{kind}:{layer + 1}:{head + 1}" for kind, layer, head in sorted(heads))


def choose_heads(trace: Trace) -> tuple[Head, ...]:
    """One multiselect per kind, of single heads ("L2 H3") and whole layers ("L2: all 8 heads",
    one choice instead of eight), seeded once from the URL."""
    ABLATE.seed("")
    requested = parse_ablation(st.session_state[ABLATE.name], trace)
    heads = range(trace.n_heads)
    by_label = {}
    for layer in range(trace.n_layers):
        by_label[f"L{layer + 1}: all {trace.n_heads} heads"] = [(layer, h) for h in heads]
        by_label |= {short_head_label(layer, h): [(layer, h)] for h in heads}
    chosen = []
    columns = st.columns(len(trace.kinds))
    for column, kind in zip(columns, trace.kinds):
        key = f"ablate_{kind}"
        if key in st.session_state:
            # Left over from another model: keep only choices this one has.
            st.session_state[key] = [label for label in st.session_state[key] if label in by_label]
        else:
            st.session_state[key] = _labels(
                [(lay, h) for k, lay, h in requested if k == kind], trace
            )
        labels = column.multiselect(
            f"Switch off heads of the {KIND_LABELS[kind]}",
            list(by_label),
            key=key,
            placeholder="none: intact",
        )
        chosen += [(kind, *pair) for label in labels for pair in by_label[label]]
    ablate = tuple(sorted(set(chosen)))
    st.session_state[ABLATE.name] = format_ablation(ablate)
    return ablate


def _labels(pairs: list[tuple[int, int]], trace: Trace) -> list[str]:
    """Choices for these (layer, head) pairs: a layer with every head off is one choice."""
    labels = []
    for layer in sorted({layer for layer, _ in pairs}):
        off = sorted(h for lay, h in pairs if lay == layer)
        if len(off) == trace.n_heads:
            labels.append(f"L{layer + 1}: all {trace.n_heads} heads")
        else:
            labels += [short_head_label(layer, h) for h in off]
    return labels


def _outputs(ctx: state.ViewContext, intact: Trace, ablated: Trace) -> None:
    st.markdown("##### Translation")
    left, right = st.columns(2)
    left.caption("Intact model")
    left.text(intact.output or "(empty)")
    right.caption("With the heads switched off")
    right.text(ablated.output or "(empty)")
    st.markdown("##### Output probability of each generated token")
    st.caption(
        "While the earlier tokens agree (“same context”), both decoders saw the same input, so "
        "“ablated p of intact token” is a like-for-like comparison (from the ablated run's top 5 "
        "when it chose another token; — when the token is not among them). After the first "
        "difference only the tokens are compared."
    )
    tables.table(step_comparison(intact, ablated).round(4), ctx.presentation)


def _attention_changes(ctx: state.ViewContext, ablated: Trace, ablate: tuple[Head, ...]) -> None:
    intact = ctx.trace
    kinds = list(intact.kinds)
    st.markdown("##### Attention in the other layers")
    # Open on the first kind the ablation changes: an ablated decoder head leaves the encoder's
    # attention as it was, and a page that opens on an all-white grid teaches nothing.
    # Likewise when the switched-off heads change and the kind on screen shows no change.
    changed = [k for k in kinds if attention_change(intact, ablated, k).max() > 0]
    ABLATION_KIND.seed((changed or kinds)[0], valid=lambda v: v in kinds)
    if st.session_state.get("ablation_seen") not in (None, ablate) and changed:
        if st.session_state[ABLATION_KIND.name] not in changed:
            st.session_state[ABLATION_KIND.name] = changed[0]
    st.session_state["ablation_seen"] = ablate
    kind = controls.kind_selector(st, ABLATION_KIND, kinds, "Attention kind to compare")
    change = attention_change(intact, ablated, kind)
    rows = comparable_rows(intact, ablated, kind)
    total_rows = intact.attention[kind].shape[2]
    if rows < total_rows:
        st.caption(
            f"Only the first {rows} of {total_rows} decoder rows are compared: after that the two "
            "runs had produced different tokens, so their rows read different inputs."
        )
    left, right = st.columns(2)
    state.plot(
        where=left,
        figure=change_grid(change, kind, ablate, ctx.presentation),
        width="stretch",
        key="ablation_change_grid",
    )
    left.caption(
        "Colour: total variation distance between a head's rows in the two runs, "
        "½ Σ |ablated − intact|, averaged over rows: 0 = identical, 1 = no overlap."
    )
    # Most changed first, so the default is the head worth looking at.
    heads = sorted(
        ((layer, head) for layer in range(change.shape[0]) for head in range(change.shape[1])),
        key=lambda lh: -change[lh],
    )
    layer, head = right.selectbox(
        "Head to compare (most changed first)",
        heads,
        format_func=lambda lh: f"{short_head_label(*lh)}: change {change[lh]:.3f}",
        key=f"ablation_head_{kind}",
    )
    state.plot(
        where=right,
        figure=difference_figure(intact, ablated, kind, layer, head, ctx.presentation),
        width="stretch",
        key="ablation_difference",
    )
    largest = np.abs(attention_difference(intact, ablated, kind, layer, head)).max()
    right.caption(
        "Red: the ablated run puts more weight there; blue: less. Scale −1..1; "
        f"the largest change in this head is {largest:.4f}."
    )


def ablated_trace(ctx: state.ViewContext, ablate: tuple[Head, ...]) -> Trace:
    """The page's run with the heads of `ablate` switched off and every other setting kept."""
    settings = ctx.trace.settings
    return state.get_trace(
        ctx.name,
        ctx.text,
        scale=settings.scale,
        ablate=ablate,
        use_positions=settings.use_positions,
        decoding=ctx.decoding,
        answer_tokens=ctx.answer_tokens,
    )


def render(ctx: state.ViewContext) -> None:
    st.markdown(HELP)
    ablate = choose_heads(ctx.trace)
    if not ablate:
        st.info("Choose heads above to switch them off and compare with the intact model.")
        return
    ablated = ablated_trace(ctx, ablate)
    st.caption(
        "Switched off: "
        + ", ".join(
            f"{KIND_LABELS[kind]} {short_head_label(layer, head)}" for kind, layer, head in ablate
        )
    )
    if ctx.trace.steps:
        _outputs(ctx, ctx.trace, ablated)
    _attention_changes(ctx, ablated, ablate)
    st.markdown("##### Encoder output")
    state.plot(
        similarity_figure(ctx.trace, ablated, ctx.presentation),
        key="ablation_similarity",
    )
