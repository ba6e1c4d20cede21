"""How well the trained translator does: its held-out scores and each head's alignment error."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .style import apply_layout, fit_title, grid_size

_EVALUATIONS = (
    ("beam4", "held-out test set, beam search (4 beams, α=0.6)"),
    ("greedy", "held-out test set, greedy"),
    ("two_clauses", "two clauses (coordinated or subordinate), beam"),
    ("longer_than_median", "longer than the median sentence by half, beam"),
    ("longer_than_training", "two clauses, longer than any training sentence, beam"),
    ("coreference", "pronoun sentences: exact match, beam"),
    ("hand_checked_v2", "sentences written by hand (corpus v2), beam"),
    ("hand_checked_v2_1", "sentences of a first class written by hand (corpus v2.1), beam"),
    ("hand_checked_v1", "sentences written by hand (first corpus), beam"),
)


def metrics_table(metrics: dict) -> pd.DataFrame:
    """One row per test set and decoding method, from the sidecar's `metrics`."""
    rows = []
    for key, label in _EVALUATIONS:
        if key in metrics:
            size = metrics[key].get("size", metrics.get("test_set", {}).get("size"))
            bleu = metrics[key].get("bleu")
            rows.append(
                {
                    "evaluation": label,
                    "sentences": size,
                    "exact match": f"{100 * metrics[key]['exact_match']:.1f}%",
                    "BLEU (sacrebleu)": "" if bleu is None else f"{bleu:.2f}",
                }
            )
    if "coreference" in metrics:
        rows.append(
            {
                "evaluation": "pronoun sentences: German pronoun of the right gender and number",
                "sentences": metrics["coreference"]["size"],
                "exact match": f"{100 * metrics['coreference']['pronoun_right']:.1f}%",
                "BLEU (sacrebleu)": "",
            }
        )
    if "names_and_digits_copied" in metrics:
        rows.append(
            {
                "evaluation": "names and digits copied unchanged",
                "sentences": metrics.get("test_set", {}).get("size"),
                "exact match": f"{100 * metrics['names_and_digits_copied']:.1f}%",
                "BLEU (sacrebleu)": "",
            }
        )
    return pd.DataFrame(rows)


def phenomenon_table(metrics: dict) -> pd.DataFrame:
    """Exact match (beam) of the held-out sentences that show each phenomenon, weakest first."""
    rows = [
        {"phenomenon": tag, "sentences": v["n"], "exact match": round(100 * v["exact_match"], 1)}
        for tag, v in metrics.get("per_phenomenon", {}).items()
    ]
    table = pd.DataFrame(rows, columns=["phenomenon", "sentences", "exact match"])
    return table.sort_values(["exact match", "phenomenon"]).reset_index(drop=True)


# The kinds of sentence people type, as the table names them (corpus/data/typed_sentences.tsv).
TYPED_KINDS = {
    "everyday": "everyday life",
    "classroom": "the classroom",
    "subject": "the lecture's subject",
    "names": "names",
    "numbers": "numbers",
    "dates_times": "dates and times",
    "questions": "questions",
    "pronoun_animate": "pronouns for people, animals",
    "pronoun_inanimate": "pronouns for things",
    "relative": "relative clauses",
    "long": "20 words and more",
}


def typed_sentences_table(metrics: dict) -> pd.DataFrame | None:
    """The sentences people type (runtime.typed_set), in all and per kind: right, wrong with no
    warning beside it, right but warned; None for weights not scored on them."""
    typed = metrics.get("typed_sentences")
    if not typed:
        return None

    def row(kind: str, v: dict) -> dict:
        return {
            "kind": kind,
            "sentences": v["sentences"],
            "right %": round(100 * v["right"], 1),
            "wrong, no warning": v["wrong_unwarned"],
            "right, but warned": v["right_warned"],
        }

    rows = [row("all", typed)] + [
        row(TYPED_KINDS.get(k, k), v) for k, v in typed["per_kind"].items()
    ]
    return pd.DataFrame(rows)


def head_grid(
    values: list[list[float]],
    title: str,
    colorbar: str,
    presentation: bool = False,
    low_is_good: bool = False,
) -> go.Figure:
    """Layer × head heatmap of one score per head on a fixed 0–1 scale; the good end is dark."""
    z = np.asarray(values, dtype=float)
    layers, heads = z.shape
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(range(1, heads + 1)),
            y=list(range(1, layers + 1)),
            colorscale="Blues_r" if low_is_good else "Blues",
            zmin=0.0,
            zmax=1.0,
            colorbar={"title": {"text": colorbar}},
            hovertemplate="layer %{y}, head %{x}: %{z:.3f}<extra></extra>",
            # ".92" rather than "0.92": three characters a cell, so two grids stand side by
            # side on a 1920-px lecture screen
            text=[[f"{v:.2f}".removeprefix("0") for v in row] for row in z],
            texttemplate="%{text}",
            xgap=2,
            ygap=2,
        )
    )
    apply_layout(
        fig,
        title,
        presentation,
        **grid_size(
            [str(layer) for layer in range(1, layers + 1)],
            heads,
            presentation,
            cell_text_chars=3,
            least_plot_fonts=20,
        ),
        xaxis={"title": {"text": "head"}, "tickvals": list(range(1, heads + 1))},
        yaxis={
            "title": {"text": "layer"},
            "tickvals": list(range(1, layers + 1)),
            "autorange": "reversed",
        },
    )
    return fit_title(fig)


def alignment_error_grid(aer: list[list[float]], presentation: bool = False) -> go.Figure:
    """Each cross-attention head's AER against the gold alignment: 0 (every argmax on a gold
    link) to 1 (none), good heads dark."""
    return head_grid(
        aer,
        "cross-attention heads: alignment error rate",
        "AER (lower = closer to gold)",
        presentation,
        low_is_good=True,
    )


def loss_curve(history: list[list[float]], floor: float, presentation: bool = False) -> go.Figure:
    """Training loss against step, from the sidecar's loss_history ([step, loss] pairs), with the
    label-smoothing floor no model can go below."""
    steps, losses = zip(*history)
    fig = go.Figure(
        go.Scatter(
            x=steps,
            y=losses,
            mode="lines",
            name="training loss",
            hovertemplate="step %{x}: loss %{y:.3f} nats<extra></extra>",
        )
    )
    fig.add_hline(
        y=floor,
        line_dash="dash",
        annotation_text=f"lowest possible with label smoothing: {floor:.3f}",
        # under the line, where no loss can be: above it, the curve's tail ran through the words
        annotation_position="bottom right",
    )
    return apply_layout(
        fig,
        "training loss (label-smoothed cross-entropy)",
        presentation,
        height=420,
        xaxis={"title": {"text": "training step"}},
        yaxis={"title": {"text": "loss (nats per target token)"}, "rangemode": "tozero"},
        showlegend=False,
    )


def attribution_alignment(metrics: dict) -> tuple[pd.DataFrame, pd.DataFrame, str] | None:
    """From a sidecar's `attribution_alignment` (runtime/attribution_table.py): the AER of every
    method, best first; Spearman's ρ of each attention variant (rows) with each gradient
    method (columns); and one sentence that says what the numbers say. None without one."""
    table = metrics.get("attribution_alignment")
    if not table:
        return None
    aer = pd.DataFrame(list(table["aer"].items()), columns=["method", "AER"]).sort_values(
        "AER", kind="stable"
    )
    agreement = pd.DataFrame(table["spearman"]).T.reset_index(names="attention")
    gradients = set(next(iter(table["spearman"].values())))
    attention = aer[~aer["method"].isin(gradients)].iloc[0]
    gradient = aer[aer["method"].isin(gradients)].iloc[0]
    winner = "a gradient method" if gradient["AER"] < attention["AER"] else "attention"
    summary = (
        f"Over {table['sentences']} held-out sentences, each German token's strongest English "
        f"token is the word it translates most often by {winner}: {gradient['method']} AER "
        f"{gradient['AER']:.3f}, against {attention['AER']:.3f} for the {attention['method']}."
    )
    return aer, agreement, summary
