"""The head atlas: what every head does over a whole corpus, not one sentence.

A corpus (lines a user pastes, or the model's built-in set) runs through the model once; every
sentence keeps its attention weights and, per head, its queries and keys. From these the views
draw each head's statistics over the corpus and, after AttentionViz (Yeh et al., 2023, "A Global
View of Transformer Attention", IEEE VIS), every query and key of one head in one 2-D picture.

The joint picture needs queries and keys in one space without changing what the head computes.
Eq. (1) scores a query q against a key k as q·k/√d_k, and each query row goes through a softmax:
- translating every key by one vector t adds q·t to every score of the row of q: the softmax is
  unchanged, so the keys are moved to share the queries' mean;
- scaling queries by c and keys by 1/c leaves every product q·k as it is, so c is chosen to give
  queries and keys the same mean norm.

The 2-D picture is PCA (instant, axes with a meaning: the directions of most variance) or t-SNE
(van der Maaten & Hinton, 2008; openTSNE's FFT-accelerated gradient, Linderman et al., 2019),
which keeps each point's neighbours near it and says nothing by its axes or far distances.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from types import MappingProxyType

import numpy as np
import torch

from model.decoder_only import KIND, CausalLM
from model.tokenization import BOS_ID, PAD_ID
from model.transformer import DEFAULT_SETTINGS, AttentionRecord, subsequent_mask

from .loaded import LoadedModel, paper_model, read_as
from .reference import Reference
from .trace import InputError, Trace, run, tokenizable

MAX_SENTENCES = 500
MAX_TOKENS = 20_000  # the model's tokens over the whole corpus (source side)
MAX_LINE_CHARS = 1_000
BUILT_IN_SIZE = 200  # sentences of the built-in corpus a view opens with
BATCH_SENTENCES = 64  # sentences of one source length the corpus run passes at once
SENTENCES_FILE = Path(__file__).with_name("atlas_sentences.txt")

PROJECTIONS = {"pca": "PCA", "tsne": "t-SNE"}
# t-SNE's cost grows with the points: a head's picture by t-SNE takes whole sentences from the
# corpus's start up to this many queries and keys together (measured in `make bench`).
TSNE_MAX_POINTS = 5_000
# Iterations: openTSNE's defaults (250 exaggerated, 500 plain) halved after the exaggerated
# phase, which is where the clusters form; the picture after 250 plain ones no longer moves
# much (tests/runtime/test_atlas.py checks it keeps neighbours, by scikit-learn's
# trustworthiness), and 750 would not fit the 10 s the issue allows on this CPU.
TSNE_EXAGGERATED_ITERATIONS = 125
TSNE_ITERATIONS = 250
TSNE_PROGRESS_EVERY = 25  # iterations between two progress reports

LIMITS = (
    f"one sentence per line, at most {MAX_SENTENCES} lines of at most {MAX_LINE_CHARS:,} "
    f"characters and {MAX_TOKENS:,} tokens in all"
)


def corpus_lines(text: object) -> tuple[str, ...]:
    """The sentences of a pasted corpus (one per non-blank line), or an InputError whose message
    names the limit that was passed."""
    if not isinstance(text, str):
        raise InputError("The corpus must be text: paste sentences, " + LIMITS + ".")
    controls = sum(
        1 for ch in text if unicodedata.category(ch) in ("Cc", "Cs") and ch not in "\t\n\r"
    )
    if "\x00" in text or controls > max(2, len(text) // 100):
        raise InputError("This looks like binary data, not text: paste sentences, " + LIMITS + ".")
    lines = tuple(line.strip() for line in text.splitlines() if line.strip())
    if not lines:
        raise InputError("The corpus is empty: paste sentences, " + LIMITS + ".")
    if len(lines) > MAX_SENTENCES:
        raise InputError(
            f"The corpus has {len(lines):,} lines; the atlas reads at most {MAX_SENTENCES} "
            "sentences, one per line: paste fewer."
        )
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_LINE_CHARS:
            raise InputError(
                f"Line {number} has {len(line):,} characters; a line may have at most "
                f"{MAX_LINE_CHARS:,} (one sentence per line)."
            )
    return lines


def file_sentences(path: Path = SENTENCES_FILE) -> tuple[str, ...]:
    """The sentences of a corpus file: one per line; '#' starts a comment line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def built_in_corpus(loaded: LoadedModel, size: int = BUILT_IN_SIZE) -> tuple[str, ...]:
    """The model's own held-out sentences where its corpus offers them (the translator's
    grammar), else the project's hand-checked English sentences."""
    if loaded.held_out is not None:
        return tuple(loaded.held_out(size))
    sentences = file_sentences()
    if size >= len(sentences):
        return sentences
    # spread over the file, whose sentences are grouped by construction
    return tuple(sentences[i * len(sentences) // size] for i in range(size))


@dataclass(frozen=True)
class SentenceRun:
    """What the atlas keeps of one sentence: per attention kind, the query and key tokens, the
    weights [layer, head, query, key] and the queries and keys [layer, head, position, d_k]."""

    text: str
    tokens: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]
    attention: Mapping[str, np.ndarray]
    queries: Mapping[str, np.ndarray]
    keys: Mapping[str, np.ndarray]
    # what the model's corpus knows of the sentence (a translator's decoder then read the
    # reference translation, so its rows line up with the gold alignment)
    reference: Reference | None = None

    @property
    def nbytes(self) -> int:
        maps = (self.attention, self.queries, self.keys)
        return sum(array.nbytes for mapping in maps for array in mapping.values())


@dataclass(frozen=True)
class CorpusRun:
    """A corpus through one model with the paper's settings (greedy decoding for a decoder)."""

    model: str
    sentences: tuple[SentenceRun, ...]
    kinds: tuple[str, ...]
    n_layers: int
    n_heads: int
    scale: float  # what Eq. (1) multiplies q·k by: 1/√d_k

    @property
    def nbytes(self) -> int:
        return sum(s.nbytes for s in self.sentences)

    def n_tokens(self, kind: str) -> int:
        """Query tokens of `kind` over the corpus (the points of one head's picture, each side)."""
        return sum(len(s.tokens[kind][0]) for s in self.sentences)


def run_corpus(
    loaded: LoadedModel,
    lines: Sequence[str],
    progress: Callable[[int, int], None] | None = None,
) -> CorpusRun:
    """Every line through `loaded`, keeping its attention weights, queries and keys as its own
    Trace shows them; `progress(done, total)` as the sentences are done. The whole corpus is
    tokenized first, so a corpus over MAX_TOKENS is refused before anything runs.

    A decoder reads the reference translation where the model's corpus knows the sentence
    (teacher forcing, as the evaluation's head tables do: one pass, and rows that line up with
    the gold alignment), else its own greedy translation. A model with no corpus of its own
    (an untrained one) has no translation worth reading, and writing its noise token by token
    took 2 s a sentence: its corpus run keeps the encoder's heads alone."""
    if not lines:
        raise InputError("The corpus is empty: paste sentences, " + LIMITS + ".")
    texts = [read_as(loaded, tokenizable(line)) for line in lines]  # as `run` reads them
    source_ids = [loaded.tokenizer.encode(text, loaded.max_source_tokens).ids for text in texts]
    total = sum(len(ids) for ids in source_ids)
    if total > MAX_TOKENS:
        raise InputError(
            f"The corpus has {total:,} tokens; the atlas reads at most {MAX_TOKENS:,}: "
            "paste fewer or shorter lines."
        )
    runs: list[SentenceRun | None] = [None] * len(lines)
    if isinstance(loaded.model, CausalLM):  # a language model reads each line, writing nothing
        lengths: dict[int, list[int]] = {}
        for index, ids in enumerate(source_ids):
            if not ids:
                raise InputError(f"Line {index + 1} has no token the model reads.")
            lengths.setdefault(len(ids), []).append(index)
        done = 0
        for same_length in lengths.values():
            for start in range(0, len(same_length), BATCH_SENTENCES):
                part = same_length[start : start + BATCH_SENTENCES]
                batch = [source_ids[i] for i in part]
                for index, sentence in zip(part, _causal_batch(loaded, lines, part, batch)):
                    runs[index] = sentence
                done += len(part)
                if progress is not None:
                    progress(done, len(lines))
        return _corpus(loaded, [sentence for sentence in runs if sentence is not None])
    model = paper_model(loaded)
    decoder = model.config.is_encoder_decoder
    encoder_only = decoder and loaded.reference is None
    # sentences the model reads in one pass (no decoding) go through it in batches of one
    # source length, so no padding mask is needed; a decoder's own translation is one Trace each
    batches: dict[int, list[tuple[int, Sequence[int], Reference | None]]] = {}
    done = 0
    for index, (line, text, ids) in enumerate(zip(lines, texts, source_ids)):
        reference = loaded.reference(text) if loaded.reference is not None else None
        forced = reference.target_ids if reference is not None and decoder else None
        if ids and (not decoder or encoder_only or forced):
            batches.setdefault(len(ids), []).append((index, ids, reference if forced else None))
            continue
        trace = run(loaded, line, target=forced or None)  # an empty line's InputError comes here
        runs[index] = _sentence_run(line, trace, reference if forced else None)
        done += 1
        if progress is not None:
            progress(done, len(lines))
    for group in batches.values():
        for start in range(0, len(group), BATCH_SENTENCES):
            chunk = group[start : start + BATCH_SENTENCES]
            for (index, _, _), sentence in zip(chunk, _forced_batch(loaded, lines, chunk)):
                runs[index] = sentence
            done += len(chunk)
            if progress is not None:
                progress(done, len(lines))
    return _corpus(loaded, [sentence for sentence in runs if sentence is not None])


def _corpus(loaded: LoadedModel, sentences: list[SentenceRun]) -> CorpusRun:
    first = sentences[0]
    first_kind = next(iter(first.attention))
    return CorpusRun(
        model=loaded.name,
        sentences=tuple(sentences),
        kinds=tuple(first.attention),
        n_layers=first.attention[first_kind].shape[0],
        n_heads=first.attention[first_kind].shape[1],
        scale=DEFAULT_SETTINGS.scale or 1 / math.sqrt(loaded.model.config.d_k),
    )


def _causal_batch(
    loaded: LoadedModel,
    lines: Sequence[str],
    chunk: Sequence[int],
    batch: Sequence[Sequence[int]],
) -> list[SentenceRun]:
    """Lines of one token length through a language model in one pass, with the default
    settings: each line's masked self-attention over its own tokens, read as plain text (a
    question is not put in the chat template here, so every model's atlas reads the same
    sentences), without what the model would write. One sentence at a time, the 135M model's
    weights were read once a sentence: 200 sentences took about a minute on 2 cores."""
    with torch.inference_mode():
        out = loaded.model(torch.tensor([list(ids) for ids in batch], device=loaded.device))
        weights = out.weights.float().cpu().numpy()  # [layer, sentence, head, n, n]
        queries = torch.stack([r.queries for r in out.attention], 1).float().cpu().numpy()
        keys = torch.stack([r.keys for r in out.attention], 1).float().cpu().numpy()
    runs = []
    for b, (index, ids) in enumerate(zip(chunk, batch)):
        tokens = tuple(loaded.tokenizer.tokens(ids))
        runs.append(
            SentenceRun(
                text=lines[index],
                tokens=MappingProxyType({KIND: (tokens, tokens)}),
                attention=MappingProxyType({KIND: _frozen(weights[:, b].copy())}),
                queries=MappingProxyType({KIND: _frozen(queries[b].copy())}),
                keys=MappingProxyType({KIND: _frozen(keys[b].copy())}),
                reference=None,
            )
        )
    return runs


def _sentence_run(text: str, trace: Trace, reference: Reference | None) -> SentenceRun:
    kinds = trace.kinds
    return SentenceRun(
        text=text,
        tokens=MappingProxyType({kind: trace.axis_tokens(kind) for kind in kinds}),
        attention=MappingProxyType({kind: trace.attention[kind] for kind in kinds}),
        queries=MappingProxyType({kind: trace.queries[kind] for kind in kinds}),
        keys=MappingProxyType({kind: trace.keys[kind] for kind in kinds}),
        reference=reference,
    )


def _forced_batch(
    loaded: LoadedModel,
    lines: Sequence[str],
    chunk: Sequence[tuple[int, Sequence[int], Reference | None]],
) -> list[SentenceRun]:
    """Sentences of one source length through the model in one pass with the paper's settings,
    each cut back to what `run` keeps of it alone: an encoder-only model's encoder, or a
    translator's encoder and its decoder reading the reference. Targets of several lengths are
    padded on the right, which the decoder's causal mask (Section 3.2.3) keeps from every
    real row: nothing needs a padding mask. Sentence by sentence, the translator's 200 built-in
    sentences took 5.2 s, nearly all of it small matrix products (one thread, AVX2); batched
    2.1 s (tests/runtime/test_atlas.py checks each sentence against its own Trace)."""
    model, device = paper_model(loaded), loaded.device
    config = model.config
    src = torch.tensor([ids for _, ids, _ in chunk], device=device)
    targets = [
        [BOS_ID, *reference.target_ids[: config.max_len - 2]] if reference else []
        for _, _, reference in chunk
    ]
    with torch.inference_mode():
        encoded = model.encode(src, None, DEFAULT_SETTINGS)
        layers = {"encoder_self": encoded.attention}
        if any(targets):
            width = max(len(t) for t in targets)
            tgt = torch.tensor([t + [PAD_ID] * (width - len(t)) for t in targets], device=device)
            decoded = model.decode(
                encoded.memory, None, tgt, subsequent_mask(width, device), DEFAULT_SETTINGS
            )
            layers["decoder_self"] = decoded.self_attention
            layers["cross"] = decoded.cross_attention
        # kind -> weights, queries, keys, each [sentence, layer, head, position, ·]
        arrays = {
            kind: tuple(
                torch.stack([field(r) for r in records], 1).float().cpu().numpy()
                for field in (AttentionRecord.captured, attrgetter("queries"), attrgetter("keys"))
            )
            for kind, records in layers.items()
        }
    runs = []
    for b, (index, ids, reference) in enumerate(chunk):
        source = tuple(loaded.tokenizer.tokens(ids))
        target = tuple(loaded.tokenizer.tokens(targets[b]))
        tokens = {"encoder_self": (source, source)}
        if reference is not None:
            tokens |= {"decoder_self": (target, target), "cross": (target, source)}
        attention, queries, keys = {}, {}, {}
        for kind in tokens:
            weights, q, k = arrays[kind]
            n, m = len(tokens[kind][0]), len(tokens[kind][1])
            attention[kind] = _frozen(weights[b, :, :, :n, :m].copy())
            queries[kind] = _frozen(q[b, :, :, :n].copy())
            keys[kind] = _frozen(k[b, :, :, :m].copy())
        runs.append(
            SentenceRun(
                text=lines[index],
                tokens=MappingProxyType(tokens),
                attention=MappingProxyType(attention),
                queries=MappingProxyType(queries),
                keys=MappingProxyType(keys),
                reference=reference,
            )
        )
    return runs


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def point_origin(corpus: CorpusRun, kind: str, side: int, index: int) -> tuple[int, int] | None:
    """(sentence index, position) of point `index` among the corpus's queries (side 0) or keys
    (side 1) of `kind`, in the order `head_points` stacks them; None if there is no such point."""
    if index < 0:
        return None
    for sentence_index, sentence in enumerate(corpus.sentences):
        count = len(sentence.tokens[kind][side])
        if index < count:
            return sentence_index, index
        index -= count
    return None


@dataclass(frozen=True)
class HeadPoints:
    """One head's queries and keys over a corpus, each point with its sentence and position."""

    queries: np.ndarray  # [n_queries, d_k]
    keys: np.ndarray  # [n_keys, d_k]
    query_origin: np.ndarray  # [n_queries, 2]: sentence index, position
    key_origin: np.ndarray  # [n_keys, 2]


def head_points(corpus: CorpusRun, kind: str, layer: int, head: int) -> HeadPoints:
    """Every query and key of (kind, layer, head) over the corpus, stacked."""

    def stack(side: str) -> tuple[np.ndarray, np.ndarray]:
        blocks = [getattr(sentence, side)[kind][layer, head] for sentence in corpus.sentences]
        lengths = [len(block) for block in blocks]
        origin = np.column_stack(
            [
                np.repeat(np.arange(len(blocks)), lengths),
                np.concatenate([np.arange(n) for n in lengths]),
            ]
        )
        return np.concatenate(blocks).astype(np.float64), origin.astype(np.int64)

    queries, query_origin = stack("queries")
    keys, key_origin = stack("keys")
    return HeadPoints(queries, keys, query_origin, key_origin)


def normalise(queries: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """AttentionViz's normalisation (module docstring): keys translated to the queries' mean,
    then queries × c and keys ÷ c with c = √(mean ‖k‖ / mean ‖q‖), so both have one mean norm.
    Every softmax row of Eq. (1) is unchanged. Returns (queries, keys, c)."""
    keys = keys - keys.mean(axis=0) + queries.mean(axis=0)
    q_norm = float(np.linalg.norm(queries, axis=1).mean())
    k_norm = float(np.linalg.norm(keys, axis=1).mean())
    c = float(np.sqrt(k_norm / q_norm)) if q_norm > 0 and k_norm > 0 else 1.0
    return queries * c, keys / c, c


def pca_2d(points: np.ndarray) -> tuple[np.ndarray, tuple[float, float]]:
    """The first two principal components of `points` [n, d] (centred; the eigenvectors of the
    d × d scatter matrix, far cheaper than an SVD of the n × d points when n ≫ d) and the share
    of the variance each explains. Each axis's sign is fixed (its largest loading positive), so
    a head's picture does not flip between runs."""
    if len(points) < 2:
        return np.zeros((len(points), 2)), (0.0, 0.0)
    centred = points - points.mean(axis=0)
    variance, vectors = np.linalg.eigh(centred.T @ centred)  # ascending
    variance, vectors = np.clip(variance[::-1], 0.0, None), vectors[:, ::-1]
    top = vectors[:, :2]
    top = top * np.sign(top[np.abs(top).argmax(axis=0), np.arange(top.shape[1])])
    coords = centred @ top
    if coords.shape[1] < 2:
        coords = np.column_stack([coords, np.zeros(len(points))])
    total = variance.sum()
    share = variance[:2] / total if total > 0 else np.zeros(2)
    return coords, (float(share[0]), float(share[1]) if len(share) > 1 else 0.0)


def tsne_2d(points: np.ndarray, progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """t-SNE of `points` [n, d] in 2-D: perplexity 30 (less for a tiny corpus), PCA
    initialisation and a fixed seed, so a head's picture is the same on every server. `progress`
    hears (iterations done, iterations in all) every TSNE_PROGRESS_EVERY iterations."""
    from openTSNE import TSNE  # its import (scikit-learn, scipy) waits until t-SNE is asked for

    n = len(points)
    if n < 4:  # below a perplexity of 1: nothing to keep near; PCA's picture says as much
        return pca_2d(points)[0]
    total = TSNE_EXAGGERATED_ITERATIONS + TSNE_ITERATIONS
    done = 0

    def report(iteration: int, error: float, embedding: np.ndarray) -> bool:
        nonlocal done
        done += TSNE_PROGRESS_EVERY
        if progress is not None:
            progress(min(done, total), total)
        return False  # never stop early

    embedding = TSNE(
        n_components=2,
        perplexity=min(30.0, (n - 1) / 3),
        early_exaggeration_iter=TSNE_EXAGGERATED_ITERATIONS,
        n_iter=TSNE_ITERATIONS,
        initialization="pca",
        negative_gradient_method="fft",
        # a coarser interpolation grid than openTSNE's (1 point per unit, at least 50 intervals):
        # on one head of MiniLM (4,986 points, one thread, AMD EPYC) 6.6 s against 20 s, and as
        # trustworthy by scikit-learn's measure (0.942 both, 10 neighbours)
        ints_in_interval=2,
        min_num_intervals=30,
        n_jobs=1,  # the server's other sessions keep the other cores
        random_state=0,
        callbacks=report,
        callbacks_every_iters=TSNE_PROGRESS_EVERY,
        verbose=False,
    ).fit(points.astype(np.float64))
    return np.asarray(embedding, dtype=np.float64)


def first_sentences(points: HeadPoints, max_points: int) -> tuple[HeadPoints, int]:
    """The queries and keys of the corpus's first k sentences, k as large as keeps both together
    within `max_points` (at least one sentence), and k. Each side stays a prefix of its stack,
    so `point_origin` still finds every point."""
    sentences = int(points.query_origin[:, 0].max()) + 1 if len(points.query_origin) else 0
    per_sentence = np.bincount(points.query_origin[:, 0], minlength=sentences) + np.bincount(
        points.key_origin[:, 0], minlength=sentences
    )
    k = max(1, int(np.searchsorted(np.cumsum(per_sentence), max_points, side="right")))
    if k >= sentences:
        return points, sentences
    n_queries = int(np.searchsorted(points.query_origin[:, 0], k))
    n_keys = int(np.searchsorted(points.key_origin[:, 0], k))
    return (
        HeadPoints(
            points.queries[:n_queries],
            points.keys[:n_keys],
            points.query_origin[:n_queries],
            points.key_origin[:n_keys],
        ),
        k,
    )


@dataclass(frozen=True)
class HeadMap:
    """One head's queries and keys in 2-D: the atlas's picture of a head."""

    query_xy: np.ndarray  # [n_queries, 2]
    key_xy: np.ndarray  # [n_keys, 2]
    points: HeadPoints
    explained: tuple[float, float] | None  # PCA: share of the variance on each axis
    c: float  # the scale the normalisation found
    method: str = "pca"  # a key of PROJECTIONS
    sentences: int = 0  # how many of the corpus's sentences (from its start) are drawn

    @property
    def nbytes(self) -> int:
        arrays = (self.query_xy, self.key_xy, *vars(self.points).values())
        return sum(a.nbytes for a in arrays)


def head_map(
    corpus: CorpusRun,
    kind: str,
    layer: int,
    head: int,
    method: str = "pca",
    progress: Callable[[int, int], None] | None = None,
) -> HeadMap:
    """Queries and keys of one head, normalised and projected together by PCA or t-SNE
    (PROJECTIONS; t-SNE over at most TSNE_MAX_POINTS of them, whole sentences)."""
    if method not in PROJECTIONS:
        raise ValueError(f"unknown projection {method!r}; choose one of {', '.join(PROJECTIONS)}")
    points = head_points(corpus, kind, layer, head)
    sentences = len(corpus.sentences)
    if method == "tsne":
        points, sentences = first_sentences(points, TSNE_MAX_POINTS)
    queries, keys, c = normalise(points.queries, points.keys)
    joint = np.concatenate([queries, keys])
    explained: tuple[float, float] | None = None
    if method == "pca":
        xy, explained = pca_2d(joint)
    else:
        xy = tsne_2d(joint, progress)
    n = len(queries)
    return HeadMap(xy[:n], xy[n:], points, explained, c, method, sentences)
