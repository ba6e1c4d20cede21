"""The Model tab: the architecture's numbers, how the weights were made and scored, and the
vocabulary a word-level model can read."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from model.registry import LoadedModel
from model.train import smoothed_loss_floor
from viz.metrics import alignment_error_grid, loss_curve, metrics_table

from . import state


def architecture_table(loaded: LoadedModel) -> pd.DataFrame:
    c = loaded.model.config
    rows = [
        ("layers N (encoder" + (" and decoder)" if c.is_encoder_decoder else ")"), c.N),
        ("heads h", c.h),
        ("d_model", c.d_model),
        ("d_k = d_v = d_model / h", c.d_k),
        ("d_ff", c.d_ff),
        ("vocabulary", c.src_vocab),
        ("positions", c.positions),
        ("activation", c.activation),
        ("parameters", f"{sum(p.numel() for p in loaded.model.parameters()):,}"),
    ]
    return pd.DataFrame(rows, columns=["quantity", "value"]).astype({"value": str})


def vocabulary_table(loaded: LoadedModel, search: str) -> pd.DataFrame | None:
    """The words of a word-level vocabulary that contain `search` (None for sub-word models)."""
    itos = getattr(loaded.tokenizer, "itos", None)
    if itos is None:
        return None
    needle = search.strip().lower()
    words = [(i, w) for i, w in enumerate(itos) if needle in w.lower()]
    return pd.DataFrame(words, columns=["id", "word"])


def render(ctx: state.ViewContext) -> list[str]:
    loaded, trace = ctx.loaded, ctx.trace
    left, right = st.columns(2)
    with left:
        st.subheader("Architecture")
        st.dataframe(architecture_table(loaded), hide_index=True, width="stretch")
    with right:
        st.subheader("This run")
        timings = pd.DataFrame(
            [(k, round(v, 1)) for k, v in trace.timings_ms.items()], columns=["step", "ms"]
        )
        st.dataframe(timings, hide_index=True, width="stretch")
        st.caption(f"Device: {trace.device}")
    metrics = loaded.info.get("metrics")
    if metrics:
        st.subheader("How well it translates")
        st.dataframe(metrics_table(metrics), hide_index=True, width="stretch")
        aer = metrics["alignment_error_rate"]
        best = aer["best"]
        st.markdown(
            f"Each cross-attention head's argmax alignment against the corpus's gold word "
            f"alignment, on {aer['sentences']} held-out sentences. Best: layer "
            f"{best['layer'] + 1}, head {best['head'] + 1}, AER {best['aer']:.3f}."
        )
        state.plot(
            alignment_error_grid(aer["per_head"], loaded.label, ctx.presentation),
            key="model_aer",
        )
    training = loaded.info.get("training")
    if training:
        with st.expander("How it was trained (Section 5)"):
            if training.get("loss_history"):
                floor = smoothed_loss_floor(len(loaded.tokenizer.itos), training["label_smoothing"])
                state.plot(
                    loss_curve(training["loss_history"], floor, loaded.label, ctx.presentation),
                    key="model_loss",
                )
            st.json({k: v for k, v in training.items() if k != "loss_history"})
    if "description" in loaded.info:
        st.caption(str(loaded.info["description"]))
    search = st.text_input("Search the vocabulary", key="vocab_search")
    words = vocabulary_table(loaded, search)
    if words is None:
        st.caption(
            "This model reads WordPiece sub-words, so any English text has tokens; "
            "words it does not know are split into pieces such as 'un', '##believ', '##able'."
        )
    else:
        st.caption(f"{len(words)} of {len(loaded.tokenizer.itos)} vocabulary entries match.")
        st.dataframe(words, hide_index=True, height=260)
    return ["vocab_search"]
