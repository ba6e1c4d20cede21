"""The positional lab for a model with rotary positions (SmolLM2): RoPE on the model's own
queries and keys, before the paper's sinusoids (positional_tab.py draws those after it)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from runtime import rope
from viz import rope as rope_figures

from . import controls, state
from .url import UrlKey, counted

LAYER = counted("rope_layer")
HEAD = counted("rope_head")
QUERY = UrlKey("rope_query", int)
KEY = UrlKey("rope_key", int)
GRID_POSITIONS = 48  # the score grid: 48 × 48 positions, enough to see the diagonals
DISTANCES = 256

INTRO = (
    "This model adds no positional encoding to its input. **Rotary position embeddings** "
    "(RoPE; Su et al., 2021, *RoFormer*) turn the query and the key of every head, in every "
    "layer, by an angle that grows with the position: pair i of a head's d_k dimensions is "
    "rotated by m·θᵢ at position m. The waves are the paper's sinusoids (θᵢ = base^(−2i/d_k), "
    "the paper's ωᵢ with base 10,000; this model's base is {base:,.0f}); what changed is where "
    "they go. A rotation keeps lengths and turns both vectors alike, so the score of a query at "
    "m against a key at n depends on m − n only (RoFormer Eq. 16): attention sees how far apart "
    "two tokens are, not where they stand."
)


def render(ctx: state.ViewContext) -> None:
    config, trace = ctx.loaded.model.config, ctx.trace
    st.subheader("Rotary positions: q and k turned by their position")
    st.markdown(INTRO.format(base=config.rope_base))
    st.latex(
        r"\begin{pmatrix} q'_{i} \\ q'_{i + d_k/2} \end{pmatrix} = "
        r"\begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i "
        r"\end{pmatrix} \begin{pmatrix} q_{i} \\ q_{i + d_k/2} \end{pmatrix}, \qquad "
        r"q'_m \cdot k'_n = f(q, k, m - n)"
    )
    state.plot(
        rope_figures.angle_heatmap(
            rope.angles(100, config.d_k, config.rope_base), config.rope_base, ctx.presentation
        ),
        key="rope_angles",
    )
    st.subheader("On this model's own queries and keys")
    kind = trace.kinds[0]
    tokens = trace.axis_tokens(kind)[0]
    n = len(tokens)
    columns = st.columns(4)
    layer = controls.layer_selector(columns[0], LAYER, trace.n_layers, default=18)
    head = controls.head_selector(columns[1], HEAD, trace.n_heads)
    QUERY.seed(n - 1, valid=lambda v: 0 <= v < n)
    KEY.seed(0, valid=lambda v: 0 <= v < n)

    def label(i: int) -> str:
        return f"{i + 1}: {tokens[i]}"

    query = columns[2].selectbox("Query token", range(n), format_func=label, key=QUERY.name)
    key = columns[3].selectbox("Key token", range(n), format_func=label, key=KEY.name)
    positions = np.arange(n)
    # the Trace's q and k are rotated at their own positions: turned back, they are what the
    # layer made of each token's content, before any position
    q = rope.unrotated(trace.queries[kind][layer, head], positions, config.rope_base)[query]
    k = rope.unrotated(trace.keys[kind][layer, head], positions, config.rope_base)[key]
    scale = trace.scale
    grid = rope.score_grid(q, k, GRID_POSITIONS, config.rope_base, scale)
    by_distance = rope.score_by_distance(q, k, DISTANCES, config.rope_base, scale)
    where = f"layer {layer + 1}, head {head + 1}"
    state.plot_row(
        [
            (
                rope_figures.score_grid_heatmap(
                    grid, tokens[query], tokens[key], where, ctx.presentation
                ),
                "rope_grid",
            ),
            (
                rope_figures.distance_figure(
                    by_distance, float(q @ k) * scale, tokens[query], tokens[key], ctx.presentation
                ),
                "rope_distance",
            ),
        ]
    )
    spread = max(float(np.ptp(np.diagonal(grid, offset=-d))) for d in range(GRID_POSITIONS))
    in_text = float(rope.score_grid(q, k, max(query, key) + 1, config.rope_base, scale)[query, key])
    st.caption(
        f"Left: the same two vectors placed at every pair of positions; every diagonal (one "
        f"distance m − n) holds one number, to within {spread:.1e} (float32 rounding). Right: "
        f"that number against the distance. In the text the query stands at {query + 1} and "
        f"the key at {key + 1}: score {in_text:.4f}, the logit of that cell before the softmax "
        "(a key after its query is masked out)."
    )
