"""The Model tab: the architecture's numbers, and how the weights were made and scored."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from model.registry import LoadedModel

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
    if loaded.info:
        st.subheader("Where the weights come from")
        st.json(dict(loaded.info), expanded=False)
    return []
