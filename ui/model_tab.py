"""The Model tab: the architecture's numbers, how the weights were made and scored, and the
pieces of the translator's vocabulary."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from model.decoder_only import DecoderOnlyConfig
from model.label_smoothing import smoothed_loss_floor
from runtime.loaded import supervised_head_note
from runtime.registry import LoadedModel
from viz.metrics import (
    alignment_error_grid,
    attribution_alignment,
    head_grid,
    loss_curve,
    metrics_table,
    phenomenon_table,
    typed_sentences_table,
)

from . import state, tables, url
from .glossary import FirstUse
from .url import UrlKey

VOCAB_SEARCH = UrlKey("vocab_search")  # a shared link reopens the same search


def architecture_table(loaded: LoadedModel) -> pd.DataFrame:
    c = loaded.model.config
    parameters = f"{sum(p.numel() for p in loaded.model.parameters()):,}"
    if isinstance(c, DecoderOnlyConfig):  # a language model of today: what changed since 2017
        rows = [
            ("layers N (decoder only)", c.N),
            ("query heads h", c.h),
            ("key/value heads (grouped-query attention)", f"{c.h_kv} (each read by {c.group})"),
            ("d_model", c.d_model),
            ("d_k = d_v = d_model / h", c.d_k),
            ("d_ff (SwiGLU)", c.d_ff),
            ("vocabulary (byte-level BPE)", f"{c.vocab:,}"),
            ("positions", f"rotary (RoPE), base {c.rope_base:,.0f}, in every layer"),
            ("normalisation", f"RMSNorm before each sub-layer (ε {c.norm_eps:g})"),
            ("context the model was trained for", f"{c.max_len:,} tokens"),
            ("parameters (output tied to the embedding)", parameters),
        ]
        return pd.DataFrame(rows, columns=["quantity", "value"]).astype({"value": str})
    rows = [
        ("layers N (encoder" + (" and decoder)" if c.is_encoder_decoder else ")"), c.N),
        ("heads h", c.h),
        ("d_model", c.d_model),
        ("d_k = d_v = d_model / h", c.d_k),
        ("d_ff", c.d_ff),
        ("vocabulary", c.src_vocab),
        ("positions", c.positions),
        ("activation", c.activation),
        ("parameters", parameters),
    ]
    return pd.DataFrame(rows, columns=["quantity", "value"]).astype({"value": str})


def vocabulary_table(loaded: LoadedModel, search: str) -> pd.DataFrame | None:
    """The entries of a vocabulary the app can list (the translator's BPE pieces) that contain
    `search`; None for MiniLM's WordPiece, which lists none."""
    itos = getattr(loaded.tokenizer, "itos", None)
    if itos is None:
        return None
    needle = search.strip().lower()
    words = [(i, w) for i, w in enumerate(itos) if needle in w.lower()]
    return pd.DataFrame(words, columns=["id", "word"])


# The head tables a person can open a head from: (sidecar key, attention kind, label).
HEAD_TABLES = (
    ("alignment_error_rate", "cross", "word alignment (AER), cross-attention"),
    ("coreference_heads.encoder_self_attention", "encoder_self", "pronoun → antecedent, encoder"),
    ("coreference_heads.cross_attention", "cross", "German pronoun → antecedent, cross-attention"),
)


def open_head(kind: str, layer: int, head: int) -> None:
    """Show this head (1-based numbers, as the tables print them) in the Attention tab."""
    url.switch(tab="Attention", view="heatmap", kind=kind, layer=layer - 1, head=head - 1)


def _render_typed(ctx: state.ViewContext, metrics: dict) -> None:
    """What a class meets: the sentences people type, each judged right or wrong against German
    written by hand, beside the verdict the page showed."""
    table = typed_sentences_table(metrics)
    if table is None:
        return
    typed = metrics["typed_sentences"]
    st.subheader("On sentences people type")
    st.markdown(
        f"{typed['sentences']} sentences a lecturer or a student types in a first class, written "
        "by hand apart from the grammar it learned from and never trained on, each with every "
        "German translation a careful speaker accepts. Translated as this page translates "
        f"(greedy): **{typed['right']:.0%} right**. Beside every output the page gives a verdict "
        "(as the grammar writes it / differs from the grammar's German / outside what it "
        f"learned): **{typed['wrong_unwarned']} wrong with no warning**, and "
        f"{typed['right_warned']} right ones warned all the same."
    )
    tables.table(table, ctx.presentation)
    unwarned = typed.get("wrong_unwarned_list") or []
    if unwarned:
        with st.expander(f"The {len(unwarned)} wrong with no warning"):
            rows = pd.DataFrame(unwarned, columns=["typed", "the model wrote", "written by hand"])
            tables.table(rows, ctx.presentation)


def _render_metrics(ctx: state.ViewContext, metrics: dict, words: FirstUse) -> None:
    loaded = ctx.loaded
    _render_typed(ctx, metrics)
    st.subheader("How well it translates the grammar's sentences")
    tables.table(metrics_table(metrics), ctx.presentation)
    phenomena = phenomenon_table(metrics)
    if len(phenomena):
        with st.expander("Exact match per phenomenon (weakest first)"):
            tables.table(phenomena, ctx.presentation, height=320)
    aer = metrics["alignment_error_rate"]
    best = aer["best"]
    score = best.get("value", best.get("aer"))
    alignment = (
        f"Each cross-attention head's argmax alignment against the corpus's gold word "
        f"alignment, on {aer['sentences']} held-out sentences. Best: layer "
        f"{best['layer']}, head {best['head']}, AER {score:.3f}."
    )
    st.markdown(alignment)
    words.after(st, alignment)
    note = supervised_head_note(loaded)
    if note:
        st.markdown(note)
    coref = metrics.get("coreference_heads")
    grids = [(alignment_error_grid(aer["per_head"], ctx.presentation), "model_aer")]
    if coref:
        st.markdown(
            f"Coreference: for {coref['links']} held-out pronouns, the share whose argmax lands "
            "on the noun phrase the pronoun stands for: from the English pronoun in encoder "
            "self-attention, and from the German pronoun in cross-attention. Best: encoder "
            f"layer {coref['best_encoder']['layer']}, head {coref['best_encoder']['head']} "
            f"({coref['best_encoder']['value']:.0%}); cross-attention layer "
            f"{coref['best_cross']['layer']}, head {coref['best_cross']['head']} "
            f"({coref['best_cross']['value']:.0%})."
        )
        for key, title in (
            ("encoder_self_attention", "encoder self-attention: pronoun → antecedent"),
            ("cross_attention", "cross-attention: German pronoun → antecedent"),
        ):
            fig = head_grid(coref[key], title, "share on the antecedent", ctx.presentation)
            grids.append((fig, f"model_coref_{key}"))
    # Side by side while the page has room at their own width: squeezed into three columns, a
    # 6×8 grid's values become too small to read.
    state.plot_row(grids)
    explained = attribution_alignment(metrics)
    if explained is not None:
        aer, agreement, summary = explained
        st.markdown(f"**Attention or gradients?** {summary}")
        left, right = st.columns(2)
        with left:
            st.caption("AER against the gold alignment, best first (0 is perfect)")
            tables.table(aer, ctx.presentation, width_px=tables.column_px(1 / 2))
        with right:
            ranks = (
                "Spearman's ρ between attention and each gradient method over a sentence's "
                "cells, averaged over the sentences (1: the same order)"
            )
            st.caption(ranks)
            words.after(st, ranks + summary)
            tables.table(agreement, ctx.presentation, width_px=tables.column_px(1 / 2))
    head_tables = [t for t in HEAD_TABLES if _lookup(metrics, t[0]) is not None]
    pick = st.columns([3, 1, 1, 2])
    table = pick[0].selectbox(
        "Open a head from", head_tables, format_func=lambda t: t[2], key="model_open_table"
    )
    layer = pick[1].selectbox("layer", range(1, loaded.model.config.N + 1), key="model_open_layer")
    head = pick[2].selectbox("head", range(1, loaded.model.config.h + 1), key="model_open_head")
    pick[3].button("Open in the Attention tab", on_click=open_head, args=(table[1], layer, head))


def _lookup(metrics: dict, path: str):
    for part in path.split("."):
        metrics = metrics.get(part) if isinstance(metrics, dict) else None
    return metrics


def training_stages(training: dict) -> list[dict]:
    """The runs that made the weights, the first (from scratch) first: a fine-tune's sidecar
    holds what it started from under `fine_tuned_from`, which may be a fine-tune itself."""
    stages = [training]
    while stages[0].get("fine_tuned_from"):
        stages.insert(0, stages[0]["fine_tuned_from"])
    return stages


def stages_caption(stages: list[dict]) -> str:
    """How the runs followed one another, in steps, e.g. "First trained from scratch for 21,400
    steps; then fine-tuned for 1,741 (the second curve); then for 1,277 (the third curve)."""
    ordinals = ("second", "third", "fourth", "fifth", "sixth")
    parts = [f"First trained from scratch for {stages[0]['steps']:,} steps"]
    for n, stage in enumerate(stages[1:]):
        then = "then fine-tuned for" if n == 0 else "then for"
        curve = f" (the {ordinals[n]} curve)" if n < len(ordinals) else ""
        parts.append(f"{then} {stage['steps']:,}{curve}")
    return "; ".join(parts) + "."


def _render_training(ctx: state.ViewContext, training: dict, vocabulary: int) -> None:
    """Each run's loss curve against the label-smoothing floor, and every run's record."""
    floor = smoothed_loss_floor(vocabulary, training["label_smoothing"])
    stages = training_stages(training)
    if len(stages) > 1:
        st.caption(stages_caption(stages))
    for n, stage in enumerate(stages):
        if not stage.get("loss_history"):
            continue
        if n > 0 and stage.get("recipe", {}).get("align_head"):
            st.caption(
                "This fine-tune's loss adds the supervised head's alignment loss × "
                f"{stage['recipe']['align_weight']} to the translation's, so it may sit above "
                "the floor."
            )
        state.plot(
            loss_curve(stage["loss_history"], floor, ctx.presentation), key=f"model_loss_{n}"
        )
    st.json(_without_histories(training))


def _without_histories(record: dict) -> dict:
    """A run's record as the page prints it: its loss curves are drawn above, not listed."""
    return {
        k: _without_histories(v) if isinstance(v, dict) else v
        for k, v in record.items()
        if k != "loss_history"
    }


def render(ctx: state.ViewContext) -> None:
    loaded, trace = ctx.loaded, ctx.trace
    left, right = st.columns(2)
    with left:
        st.subheader("Architecture")
        tables.table(architecture_table(loaded), ctx.presentation, width_px=tables.column_px(1 / 2))
    with right:
        st.subheader("This run")
        timings = pd.DataFrame(
            [(k, round(v, 1)) for k, v in trace.timings_ms.items()], columns=["step", "ms"]
        )
        tables.table(timings, ctx.presentation, width_px=tables.column_px(1 / 2))
        st.caption(f"Device: {trace.device}")
    metrics = loaded.info.get("metrics")
    if metrics:
        _render_metrics(ctx, metrics, FirstUse())
    training = loaded.info.get("training")
    if training:
        with st.expander("How it was trained (Section 5)"):
            _render_training(ctx, training, len(loaded.tokenizer.itos))
    if "description" in loaded.info:
        st.caption(str(loaded.info["description"]))
    VOCAB_SEARCH.seed("")
    search = st.text_input("Search the vocabulary", key=VOCAB_SEARCH.name)
    words = vocabulary_table(loaded, search)
    if words is None:
        st.caption(
            "This model reads WordPiece sub-words, so any English text has tokens; "
            "words it does not know are split into pieces such as 'un', '##believ', '##able'."
        )
    elif isinstance(loaded.model.config, DecoderOnlyConfig):
        st.caption(
            f"{len(words):,} of {len(loaded.tokenizer.itos):,} tokens match. It reads bytes: any "
            "text in any script has tokens, and a character it rarely saw is several (a "
            "leading space is part of a word's token; ↵ is a new line)."
        )
        st.dataframe(words, hide_index=True, height=260)
    else:
        st.caption(f"{len(words)} of {len(loaded.tokenizer.itos)} vocabulary entries match.")
        st.dataframe(words, hide_index=True, height=260)
