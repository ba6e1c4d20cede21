"""The Positional-encoding lab (Section 3.5): the sinusoids, their wavelengths, why a shift is a
rotation, how much of the input is position, and what self-attention sees without positions."""

from __future__ import annotations

import numpy as np
import streamlit as st

from model.transformer import sinusoidal_table
from model.weights import WeightsError
from runtime.loaded import is_language_model
from runtime.probes import input_parts, position_table, shuffle_words
from runtime.registry import ModelEntry, ModelUnavailable, all_models, find_model
from runtime.trace import Trace
from viz import positional
from viz.attention import heatmap
from viz.style import KIND_LABELS

from . import controls, rope_section, state, tables
from .url import UrlKey, counted

MAX_POSITIONS = 1000
MAX_SIMILARITY_POSITIONS = 200  # a 1000×1000 matrix would be 1M cells sent to the browser
N_POSITIONS = UrlKey("pos_n", int)
D_MODEL = UrlKey("pos_d", int)
SHIFT = UrlKey("pos_k", int)
# A lesson step on PE(pos+k) (ui/scenes.toml) opens with that section, not below the table.
FIRST = UrlKey("pos_first")
LAYER = counted("pos_layer")
HEAD = counted("pos_head")


@st.cache_data(max_entries=32, show_spinner=False)
def _sinusoids(n_positions: int, d_model: int) -> np.ndarray:
    return sinusoidal_table(n_positions, d_model).numpy()


@st.cache_data(max_entries=32, show_spinner=False)
def _profile(table: np.ndarray):
    return positional.offset_profile(table)


def _is_even(value: int) -> bool:
    return value % 2 == 0 and 4 <= value <= 1024


def render(ctx: state.ViewContext) -> None:
    config = ctx.loaded.model.config
    # A model with rotary positions (a language model of today) is drawn on its own q and k
    # first, then beside the paper's sinusoids; it adds nothing to its input, so the sections
    # on the input's parts and on positions switched off in the encoder are the paper's.
    rotary = config.positions == "rotary"
    # the sections on the input's parts and on positions switched off run the paper's encoder:
    # a language model with a learned table (GPT-2) shows that table and the sinusoids only
    encoder = not rotary and not is_language_model(ctx.loaded)
    if rotary:
        rope_section.render(ctx)
        st.subheader("The paper's way: sinusoids added to the input, once")
    st.markdown(
        "The encoder has no recurrence and no convolution, so nothing in self-attention knows "
        "the order of the words. The paper adds to each input embedding a vector that depends "
        "only on the position (Section 3.5):"
    )
    if encoder:
        # This text's run without positions here, though its section comes last: a new
        # text's first view names that work at once (its status line), not after the
        # sinusoids' figures (0.78 s in make bench, section 11); the section reads the cache.
        # (Not before the text above: the status's emptied slot would be the tab's first.)
        _without_positions(ctx)
    st.latex(
        r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right), \qquad "
        r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)"
    )
    N_POSITIONS.seed(100, valid=lambda v: 10 <= v <= MAX_POSITIONS and v % 10 == 0)
    D_MODEL.seed(config.d_model, valid=_is_even)
    SHIFT.seed(5, valid=lambda v: 1 <= v <= 100)
    FIRST.seed("table", valid=lambda v: v in ("table", "shift"))
    shift_first = st.session_state[FIRST.name] == "shift"
    left, right = st.columns(2)
    n_positions = left.slider(
        "Number of positions", 10, MAX_POSITIONS, step=10, key=N_POSITIONS.name
    )
    d_model = right.slider(
        f"d_model (this model: {config.d_model})", 4, 1024, step=2, key=D_MODEL.name
    )
    table = _sinusoids(n_positions, d_model)
    if shift_first:
        _shift_section(ctx, table, n_positions)
    state.plot(
        positional.encoding_heatmap(
            table,
            f"Sinusoidal positional encoding PE[pos, dim], {n_positions} positions × d_model "
            f"{d_model}",
            ctx.presentation,
        ),
        key="pos_heatmap",
    )
    if not shift_first:  # the paper's reason for sinusoids, right under the table it is about
        _shift_section(ctx, table, n_positions)

    st.subheader("Each dimension is a wave; the wavelengths grow geometrically")
    longest = f"{positional.wavelengths(d_model)[-1]:,.1f}".replace(",", "{,}")  # no math space
    st.latex(
        r"\lambda_i = 2\pi \cdot 10000^{2i/d_{model}}, \qquad "
        rf"\lambda_0 = 2\pi \approx 6.28, \quad \lambda_{{{d_model // 2 - 1}}} = {longest}"
    )
    default_dims = [d for d in (4, 5, 6, 7) if d < d_model]
    dimensions = st.multiselect(
        "Dimensions to plot", list(range(d_model)), default=default_dims, key="pos_dims"
    )
    left, right = st.columns(2)
    if dimensions:
        state.plot(
            where=left,
            figure=positional.dimension_curves(
                table,
                sorted(dimensions),
                f"PE(position, dim) for {len(dimensions)} dimensions, d_model {d_model}",
                ctx.presentation,
            ),
            title_chars=state.HALF_PAGE_TITLE_CHARS,
            key="pos_curves",
        )
    else:
        left.info("Choose at least one dimension to plot.")
    state.plot(
        where=right,
        figure=positional.wavelength_figure(d_model, ctx.presentation),
        title_chars=state.HALF_PAGE_TITLE_CHARS,
        key="pos_waves",
    )

    st.subheader("Similarity depends on the offset, not on the position")
    st.latex(
        r"PE(p)\cdot PE(q) = \sum_{i} \cos\!\big((p-q)\,\omega_i\big), \qquad "
        r"\omega_i = 10000^{-2i/d_{model}}"
    )
    shown = min(n_positions, MAX_SIMILARITY_POSITIONS)
    left, right = st.columns(2)
    state.plot(
        where=left,
        figure=positional.similarity_heatmap(
            table[:shown], f"PE(p)·PE(q), first {shown} positions", ctx.presentation
        ),
        title_chars=state.HALF_PAGE_TITLE_CHARS,
        key="pos_similarity",
    )
    profile = _profile(table)
    state.plot(
        where=right,
        figure=positional.offset_profile_figure(
            {"sinusoids": profile},
            f"PE(p)·PE(p+offset) over all p, {n_positions} positions",
            ctx.presentation,
        ),
        title_chars=state.HALF_PAGE_TITLE_CHARS,
        key="pos_profile",
    )
    spread = float((profile["highest"] - profile["lowest"]).max())
    st.caption(
        f"Largest spread over positions at any offset: {spread:.2e} (float32 rounding); "
        f"at offset 0 every position has PE·PE = d_model/2 = {d_model // 2}."
    )

    if encoder:
        _input_parts_section(ctx)
        _positions_off_section(ctx)
    _learned_positions_section(ctx, n_positions)


def _shift_section(ctx: state.ViewContext, table, n_positions: int) -> None:
    st.subheader("A shift by k positions is one fixed linear map")
    st.markdown(
        "The paper chose sinusoids because PE(pos+k) is a linear function of PE(pos). From "
        "sin(a+b) = sin a cos b + cos a sin b and cos(a+b) = cos a cos b − sin a sin b, each "
        "pair of dimensions is rotated by the angle k·ωᵢ:"
    )
    st.latex(
        r"\begin{pmatrix} PE_{(pos+k,\,2i)} \\ PE_{(pos+k,\,2i+1)} \end{pmatrix} = "
        r"\begin{pmatrix} \cos k\omega_i & \sin k\omega_i \\ -\sin k\omega_i & \cos k\omega_i "
        r"\end{pmatrix} \begin{pmatrix} PE_{(pos,\,2i)} \\ PE_{(pos,\,2i+1)} \end{pmatrix}"
    )
    largest_shift = min(100, n_positions - 1)
    if SHIFT.name in st.session_state:  # (not when the browser sent k: it fits its slider)
        st.session_state[SHIFT.name] = min(st.session_state[SHIFT.name], largest_shift)
    k = st.slider("Shift k (positions)", 1, largest_shift, key=SHIFT.name)
    state.plot(positional.shift_figure(table, k, ctx.presentation), key="pos_shift")
    residual = positional.shift_residual(table, k)
    st.caption(
        f"Largest residual over all {residual.size} positions: {residual.max():.2e}. The table "
        "is stored in float32 (resolution about 6e-8 near 1), so this is rounding, not a "
        "difference."
    )


def _input_parts_section(ctx: state.ViewContext) -> None:
    config = ctx.loaded.model.config
    st.subheader("How much of the input is position, for the typed text")
    parts = input_parts(ctx.loaded, ctx.text)
    if config.positions == "sinusoidal":
        st.latex(r"x_{pos} = \mathrm{Embedding}(token_{pos}) \cdot \sqrt{d_{model}} + PE_{pos}")
        st.markdown(
            "Each sinusoid vector has norm √(d_model/2) "
            f"= {np.sqrt(config.d_model / 2):.2f} at every position (sin² + cos² = 1 per pair)."
        )
    else:
        st.latex(
            r"x_{pos} = \mathrm{LayerNorm}\big(\mathrm{word}(token_{pos}) + "
            r"\mathrm{type}_0 + \mathrm{position}_{pos}\big)"
        )
        st.markdown(
            "This model is BERT-style: no √d_model factor, a *learned* position vector per "
            "position, a token-type vector (type 0 for a single text), and a LayerNorm over the "
            "sum. The LayerNorm mixes the parts, so the last bar is not the sum of the others."
        )
    norms = positional.input_norms(parts.tokens, parts.parts, parts.total)
    state.plot(
        positional.input_norms_figure(
            norms, "norm of each part of the encoder input", ctx.presentation
        ),
        key="pos_input_norms",
    )
    tables.table(norms.round(3), ctx.presentation)


def _without_positions(ctx: state.ViewContext) -> Trace:
    return state.get_trace(
        ctx.name,
        ctx.text,
        use_positions=False,
        decoding=ctx.decoding,
        answer_tokens=ctx.answer_tokens,
    )


def _positions_off_section(ctx: state.ViewContext) -> None:
    st.subheader("Positions switched off: self-attention is blind to order")
    st.markdown(
        "Without positional information the encoder's self-attention is permutation-equivariant: "
        "shuffle the words and the attention is the same matrix with its rows and columns "
        "shuffled the same way. Below, the shuffled run is put back in the original order; "
        "without positions it is identical to the unshuffled run."
    )
    trace = ctx.trace
    if "pos_seed" not in st.session_state:
        st.session_state["pos_seed"] = 0
    columns = st.columns([3, 2, 2])
    layer = controls.layer_selector(columns[0], LAYER, trace.n_layers, "Encoder layer")
    head = controls.head_selector(columns[1], HEAD, trace.n_heads)
    if columns[2].button("Reshuffle the words", key="pos_reshuffle"):
        st.session_state["pos_seed"] += 1
    seed = st.session_state["pos_seed"]
    no_positions = _without_positions(ctx)
    shuffled = shuffle_words(ctx.loaded, ctx.text, seed)
    kind = "encoder_self"
    # Rows: positions on, positions off. Columns: the typed order, the shuffled run put back.
    grid = [[("positions on", trace)], [("positions off", no_positions)]]
    if shuffled is not None:
        st.text(f"Shuffled text (seed {seed}): {shuffled.text}")
        for row, use_positions in zip(grid, (True, False)):
            # the encoder alone: its attention is all these panels show, and the decoding a
            # whole run adds took most of the tab's first view (4 s of 6.6 s)
            run = state.get_trace(
                ctx.name,
                shuffled.text,
                use_positions=use_positions,
                decoding=ctx.decoding,
                answer_tokens=ctx.answer_tokens,
                encoder_only=True,
            )
            row.append(
                (
                    f"shuffled, positions {'on' if use_positions else 'off'}, put back in order",
                    positional.unshuffled(run, shuffled.permutation),
                )
            )
        gaps = [np.abs(row[1][1].attention[kind] - row[0][1].attention[kind]).max() for row in grid]
        st.markdown(
            "Largest difference over all layers and heads between the typed order and the "
            f"shuffled run put back in order: **{gaps[0]:.3f}** with positions on, "
            f"**{gaps[1]:.1e}** with positions off (float32 rounding)."
        )
    else:
        st.info("The text needs at least two words to shuffle.")
    state.plot_row(
        [
            (
                heatmap(shown, kind, layer, head, setting, presentation=ctx.presentation),
                f"pos_attention_{r}{c}",
            )
            for r, row in enumerate(grid)
            for c, (setting, shown) in enumerate(row)
        ]
    )
    st.caption(f"All panels: {KIND_LABELS[kind]}, layer {layer + 1}, head {head + 1}.")
    if trace.target_tokens:
        st.markdown("Translations (the decoder has its own positional encoding, also off):")
        tables.table(
            {
                "run": ["positions on", "positions off"],
                "translation": [trace.output, no_positions.output],
            },
            ctx.presentation,
        )


def learned_positions_model(current: str | None = None) -> ModelEntry | None:
    """The model whose learned position vectors are shown beside the sinusoids: the sidebar's
    model `current` where it learned them, else the first model that offers learned positions."""
    models = all_models()
    if current in models and models[current].positions == "learned":
        return models[current]
    return find_model(lambda entry: entry.positions == "learned")


def _learned_positions_section(ctx: state.ViewContext, n_positions: int) -> None:
    st.subheader("Learned position vectors of a pretrained model, beside the sinusoids")
    entry = learned_positions_model(ctx.name)
    if entry is None:
        st.info("No model here learned its position vectors, so there are none to compare with.")
        return
    try:
        pretrained = state.get_model(entry.name)
    except (ModelUnavailable, WeightsError) as err:
        st.info(f"The pretrained encoder cannot be loaded here: {err}")
        return
    config = pretrained.model.config
    shown = min(n_positions, config.max_len)
    learned = position_table(pretrained, shown)
    sinusoids = _sinusoids(shown, config.d_model)
    st.markdown(
        f"{pretrained.label} learned one vector per position (up to {config.max_len}) during "
        f"pre-training instead of using the formula. Both are shown for d_model = "
        f"{config.d_model} and the first {shown} positions. The learned vectors are small "
        f"beside the sinusoids' ±1, with a few large dimensions: their colours end at "
        f"±{positional.learned_scale_bound(learned):.2f}, which "
        f"{positional.LEARNED_SCALE_PERCENTILE}% of their values stay within (hover for exact "
        "values)."
    )
    left, right = st.columns(2)
    state.plot(
        where=left,
        figure=positional.encoding_heatmap(
            learned,
            f"{entry.short_label} learned position vectors, {shown} positions",
            ctx.presentation,
            learned=True,
        ),
        title_chars=state.HALF_PAGE_TITLE_CHARS,
        key="pos_learned_heatmap",
    )
    state.plot(
        where=right,
        figure=positional.encoding_heatmap(
            sinusoids, f"Sinusoids, {shown} positions × d_model {config.d_model}", ctx.presentation
        ),
        title_chars=state.HALF_PAGE_TITLE_CHARS,
        key="pos_learned_sinusoids",
    )
    state.plot(
        positional.offset_profile_figure(
            {f"{entry.short_label} learned": _profile(learned), "sinusoids": _profile(sinusoids)},
            f"Dot product against offset, d_model {config.d_model}: the band is the spread "
            "over positions",
            ctx.presentation,
        ),
        width="stretch",
        key="pos_learned_profile",
    )
