"""The paper's Figures 3–5 on a pretrained encoder: heads chosen by a statistic over the text.

"Attention Is All You Need" (Section 4 and the appendix) draws encoder self-attention of its
layer 5 on two sentences: heads that follow a long-distance dependency ("making … more
difficult", Figure 3), heads "apparently involved in anaphora resolution" ("its" → "Law",
Figure 4) and heads whose behaviour "seems related to the structure of the sentence"
(Figure 5). The paper picked its heads by eye; here every head of every layer gets a number
computed from its weights on the text, and the best ones are drawn.

Statistics are over words, not WordPiece tokens: a word's pieces ("favour", "##ite") are one
word. The weight from word a to word b sums over b's pieces (the share of a query's attention
that lands anywhere in b) and averages over a's pieces (each piece is one query, the word's
row is their mean), so every word row still sums to 1.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .style import ATTENTION_COLORSCALE, GOLD_COLOR, apply_layout, fit_title, grid_size

PIECE_PREFIX = "##"  # WordPiece's mark of a word-internal piece

FIG3_SENTENCE = (
    "It is in this spirit that a majority of American governments have passed new laws since "
    "2009 making the registration or voting process more difficult."
)
FIG45_SENTENCE = (
    "The Law will never be perfect, but its application should be just - this is what we are "
    "missing, in my opinion."
)

# Figure -> (its sentence, the query word and the key word the statistic starts from).
FIGURES = {
    "3": (FIG3_SENTENCE, "making", None),
    "4": (FIG45_SENTENCE, "its", "law"),
    "5": (FIG45_SENTENCE, None, None),
}
FAR_WORDS = 4  # Figure 3: a key at least this many words from the query is "far"
MAX_OFFSET = 2  # Figure 5: relative positions -2, -1, +1, +2
PICK_SHARE = 0.5  # the chosen layer's heads that score at least half the best score…
PICK_MOST = 4  # …at most this many


@dataclass(frozen=True)
class Words:
    """The words of a tokenised text: each word's text, its token indices and whether it is a
    special token ([CLS], [SEP]), which stays a word of its own."""

    text: tuple[str, ...]
    pieces: tuple[tuple[int, ...], ...]
    special: tuple[bool, ...]

    def index(self, word: str) -> int | None:
        """The first word spelt `word` (case-insensitive), or None."""
        lowered = word.lower()
        return next((i for i, w in enumerate(self.text) if w.lower() == lowered), None)

    @property
    def ordinary(self) -> list[int]:
        return [i for i, special in enumerate(self.special) if not special]


def group_words(tokens: Sequence[str], special_tokens: Collection[str]) -> Words:
    """Join each token starting with "##" to the word before it."""
    text, pieces, special = [], [], []
    for index, token in enumerate(tokens):
        is_special = token in special_tokens
        if token.startswith(PIECE_PREFIX) and pieces and not special[-1]:
            text[-1] += token[len(PIECE_PREFIX) :]
            pieces[-1].append(index)
            continue
        text.append(token)
        pieces.append([index])
        special.append(is_special)
    return Words(tuple(text), tuple(tuple(p) for p in pieces), tuple(special))


def word_attention(attention: np.ndarray, words: Words) -> np.ndarray:
    """[..., query token, key token] -> [..., query word, key word]: the sum over the key
    word's pieces of the mean over the query word's pieces."""
    n_tokens = attention.shape[-1]
    member = np.zeros((n_tokens, len(words.text)))
    for word, pieces in enumerate(words.pieces):
        member[list(pieces), word] = 1.0
    mean_rows = member.T / member.sum(axis=0)[:, None]  # [word, token], rows sum to 1
    return mean_rows @ np.asarray(attention, dtype=np.float64) @ member


# --- The statistics: one number per (layer, head), from word attention [layer, head, q, k] -----


def long_distance_mass(word_weights: np.ndarray, words: Words, query: int) -> np.ndarray:
    """Figure 3: the weight word `query` puts on words at least FAR_WORDS words away (either
    side; [CLS] and [SEP] are not words of the sentence and do not count)."""
    far = [j for j in words.ordinary if abs(j - query) >= FAR_WORDS]
    return word_weights[:, :, query, far].sum(axis=-1)


def antecedent_weight(word_weights: np.ndarray, query: int, antecedent: int) -> np.ndarray:
    """Figure 4: the weight from the pronoun to its antecedent."""
    return word_weights[:, :, query, antecedent]


def offset_share(word_weights: np.ndarray, words: Words) -> tuple[np.ndarray, np.ndarray]:
    """Figure 5: how much of a head's attention keeps one fixed relative position, the same
    for every word — the best over offsets δ in ±1 … ±MAX_OFFSET of the mean over words i of
    the weight on word i + δ (specials left out). Returns the scores and each head's δ.

    A head scoring 1 reads the word δ places away from every word, whatever the words are: it
    follows the sentence's order, not its content."""
    ordinary = set(words.ordinary)
    shape = word_weights.shape[:2]
    best, best_offset = np.zeros(shape), np.zeros(shape, dtype=int)
    for offset in (d for d in range(-MAX_OFFSET, MAX_OFFSET + 1) if d):
        pairs = [(i, i + offset) for i in sorted(ordinary) if i + offset in ordinary]
        if not pairs:
            continue
        queries, keys = zip(*pairs)
        share = word_weights[:, :, list(queries), list(keys)].mean(axis=-1)
        better = share > best
        best, best_offset = np.where(better, share, best), np.where(better, offset, best_offset)
    return best, best_offset


def pick_heads(scores: np.ndarray) -> tuple[int, list[int]]:
    """The layer of the best (layer, head), and that layer's heads scoring at least PICK_SHARE
    of the best score (at most PICK_MOST, best first): the paper draws one layer at a time."""
    layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
    row = scores[layer]
    order = [int(h) for h in np.argsort(-row, kind="stable")]
    chosen = [h for h in order if row[h] >= PICK_SHARE * row[head]][:PICK_MOST]
    return int(layer), chosen


def ranking_frame(
    scores: np.ndarray, label: str, top: int = 6, offsets: np.ndarray | None = None
) -> pd.DataFrame:
    """The `top` heads of all layers by score, best first (layers and heads from 1)."""
    order = np.argsort(-scores.ravel(), kind="stable")[:top]
    layers, heads = np.unravel_index(order, scores.shape)
    frame = pd.DataFrame(
        {"layer": layers + 1, "head": heads + 1, label: scores[layers, heads].round(3)}
    )
    if offsets is not None:
        frame["offset δ"] = [f"{int(d):+d}" for d in offsets[layers, heads]]
    return frame


def score_heatmap(
    scores: np.ndarray,
    label: str,
    title: str,
    chosen: tuple[int, Sequence[int]],
    presentation: bool = False,
) -> go.Figure:
    """Every head's score, layers down, heads across, on a fixed 0–1 scale (every statistic
    here is a share of a row of attention weights); the drawn heads framed in red."""
    n_layers, n_heads = scores.shape
    rows = [f"layer {layer + 1}" for layer in range(n_layers)]
    # Heads as numbers from 1, not category names: Plotly reads a shape's x of a category axis
    # whose names are numbers as a name, not as a position.
    columns = list(range(1, n_heads + 1))
    fig = go.Figure(
        go.Heatmap(
            z=scores.tolist(),  # plain numbers in the page's JSON, not base64
            x=columns,
            y=rows,
            zmin=0.0,
            zmax=1.0,
            colorscale=ATTENTION_COLORSCALE,
            xgap=1,
            ygap=1,
            colorbar={"thickness": 18, "title": {"text": label}},
            hovertemplate=f"%{{y}}, head %{{x}}: {label} %{{z:.3f}}<extra></extra>",
        )
    )
    layer, heads = chosen
    for head in heads:
        fig.add_shape(
            type="rect",
            x0=head + 0.5,
            x1=head + 1.5,
            y0=layer - 0.5,
            y1=layer + 0.5,
            line={"color": GOLD_COLOR, "width": 3},
        )
    apply_layout(
        fig,
        title,
        presentation,
        xaxis={"title": {"text": "head"}, "side": "top", "showgrid": False, "dtick": 1},
        yaxis={"autorange": "reversed", "showgrid": False},
        **grid_size(rows, n_heads, presentation),
    )
    return fit_title(fig, top_axis_tokens=[str(c) for c in columns])
