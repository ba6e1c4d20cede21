"""Measurement 9: the head atlas (runtime/atlas.py, viz/atlas.py), the times its tab waits for:
the built-in corpus of 200 sentences through MiniLM (72 heads) and through the translator (144
heads) with every statistic of every head; one head's normalisation and PCA, and its t-SNE
(whole sentences up to 5,000 queries and keys); the matrix of every head by PCA. Interleaved, so a slow spell of the shared machine hits every step alike.
"""

from __future__ import annotations

import torch

from runtime import registry
from runtime.atlas import TSNE_MAX_POINTS, built_in_corpus, head_map, run_corpus
from viz.atlas import corpus_statistics, matrix_figure

from .timing import interleaved

MODELS = ("minilm-l6", "en-de")  # 72 and 144 heads; the targets are in bench/report.py


def atlas(repeats: int) -> dict:
    return {name: one_model(name, repeats) for name in MODELS}


def one_model(name: str, repeats: int) -> dict:
    loaded = registry.load(name, torch.device("cpu"))
    lines = built_in_corpus(loaded)
    corpus = run_corpus(loaded, lines)
    kind = corpus.kinds[0]
    tsne = head_map(corpus, kind, 1, 2, "tsne")  # also the first call: openTSNE's import
    calls = {
        "corpus and every statistic": lambda: corpus_statistics(
            run_corpus(loaded, lines), loaded.special_tokens
        ),
        "one head's PCA": lambda: head_map(corpus, kind, 1, 2),
        f"one head's t-SNE (≤ {TSNE_MAX_POINTS:,} points)": lambda: head_map(
            corpus, kind, 1, 2, "tsne"
        ),
        "matrix view by PCA": lambda: matrix_figure(corpus, kind),
    }
    return {
        "sentences": len(lines),
        "tokens": corpus.n_tokens(kind),
        "heads": len(corpus.kinds) * corpus.n_layers * corpus.n_heads,
        "tsne_points": sum(len(xy) for xy in (tsne.query_xy, tsne.key_xy)),
        "stats": interleaved(calls, repeats=repeats),
    }
