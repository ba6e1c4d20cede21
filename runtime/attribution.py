"""Which source tokens made each token of the translation: gradient attributions beside the
attention weights of the same Trace ("Attention is not Explanation", Jain & Wallace, 2019;
"Attention is not not Explanation", Wiegreffe & Pinter, 2019).

The function explained, for decoder row t: f_t(x) = log p(y_t | y_<t, x), the log-probability
the translator gave the t-th token it wrote, teacher-forced on its own output (greedy or beam, as
in the Trace), with x the source token vectors (Section 3.4: the embedding lookup times
sqrt(d_model), before the positional encodings are added). For source token i:

- saliency (Simonyan et al., 2014): ||∂f_t/∂x_i||₂ (Captum's Saliency);
- input × gradient (Shrikumar et al., 2016): |Σ_d x_id ∂f_t/∂x_id| (Captum's InputXGradient);
- integrated gradients (Sundararajan et al., 2017, Eq. 1): |Σ_d (x − x')_id ∫₀¹ ∂f_t(x' + α(x −
  x'))/∂x_id dα|, the baseline x' being the padding token's vector at every position, the
  integral by the Gauss-Legendre rule with `steps` points (`_integrated_gradients`, checked
  against Captum's IntegratedGradients).

Every row at once: for Captum's two the sentence is repeated once per target row and each copy
is differentiated for its own row's token (Captum's per-example target). The shared model is
only read: the gradient is taken with respect to inputs built here
(`EncoderDecoder.encode_token_vectors`), so no hook is put on the model that other sessions are
running.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch
from torch import Tensor

from model.tokenization import BOS_ID, PAD_ID
from model.transformer import DEFAULT_SETTINGS, EncoderDecoder, RunSettings, subsequent_mask

from .loaded import LoadedModel, paper_model
from .trace import Trace

METHODS = {
    "saliency": "saliency",
    "input_x_gradient": "input × gradient",
    "integrated_gradients": "integrated gradients",
}


@dataclass(frozen=True)
class Attributions:
    """One method's attributions for a Trace: `scores` [target row, source token] ≥ 0 (what the
    views draw, row by row), and for integrated gradients the signed per-token sums `signed`
    with `delta`, the largest |Σ_i signed[t, i] − (f_t(x) − f_t(x'))| over rows: the check of
    the completeness axiom (Captum's convergence delta)."""

    method: str
    scores: np.ndarray
    signed: np.ndarray
    delta: float | None = None


def stacked(parts: Sequence[Attributions]) -> Attributions:
    """One method's attributions of blocks of rows, one after another, as one."""
    deltas = [p.delta for p in parts if p.delta is not None]
    return Attributions(
        parts[0].method,
        np.concatenate([p.scores for p in parts]),
        np.concatenate([p.signed for p in parts]),
        max(deltas) if deltas else None,
    )


def attribute(
    loaded: LoadedModel,
    trace: Trace,
    method: str,
    steps: int = 32,
    settings: RunSettings = DEFAULT_SETTINGS,
    rows: Sequence[int] | None = None,
) -> Attributions:
    """`method`'s attributions of each of the Trace's output tokens (or of the decoder `rows`
    given, in that order) to its source tokens."""
    model = paper_model(loaded)
    if not model.config.is_encoder_decoder or not trace.output_ids:
        raise ValueError("attributions explain a translation: this model wrote no output")
    return attribute_ids(
        model, trace.source_ids, trace.output_ids, method, steps, settings, rows,
        loaded.bos_id, loaded.pad_id,
    )  # fmt: skip


def attribute_ids(
    model: EncoderDecoder,
    source_ids: Sequence[int],
    output_ids: Sequence[int],
    method: str,
    steps: int = 32,
    settings: RunSettings = DEFAULT_SETTINGS,
    rows: Sequence[int] | None = None,
    bos_id: int = BOS_ID,
    pad_id: int = PAD_ID,
) -> Attributions:
    """`method`'s attributions of each token of `output_ids` (teacher-forced) to `source_ids`,
    on the device the model is on: of every row, or of the `rows` given (a page computes the
    row a person chose first, the others after)."""
    # imported here: Captum brings matplotlib, two seconds the page need not wait for
    from captum.attr import InputXGradient, Saliency  # type: ignore[import-untyped]

    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    device = next(model.parameters()).device
    chosen = list(range(len(output_ids))) if rows is None else list(rows)
    if not all(0 <= r < len(output_ids) for r in chosen):
        raise ValueError(f"rows must lie in 0..{len(output_ids) - 1}, got {chosen}")
    src = torch.tensor([list(source_ids)], device=device)
    decoder_input = torch.tensor([[bos_id, *output_ids[:-1]]], device=device)
    tgt_mask = subsequent_mask(len(output_ids), device)
    embed = model.src_embed.tokens
    with torch.no_grad():
        x = embed(src).expand(len(chosen), -1, -1).contiguous()
        baseline = embed(torch.full_like(src, pad_id)).expand(len(chosen), -1, -1).contiguous()
    x.requires_grad_()  # a tensor of this call's own: the gradient is taken here, not on the model
    # nothing here reads the attention weights: Eq. (1) by the fused kernel, no stacks kept
    fused = replace(settings, capture=False)
    row_of = torch.tensor(chosen, device=device)
    target = [output_ids[r] for r in chosen]

    def log_probs(vectors: Tensor, row: Tensor) -> Tensor:
        """[B, vocab]: log p(· | row's prefix, source vectors) of each example's own row."""
        memory = model.encode_token_vectors(vectors, None, fused).memory
        decoded = model.decode(
            memory, None, decoder_input.expand(vectors.size(0), -1), tgt_mask, fused
        )
        assert model.generator is not None
        picked = decoded.output[torch.arange(vectors.size(0), device=device), row]
        out: Tensor = model.generator(picked)
        return out

    signed: Tensor
    delta: float | None = None
    if method == "integrated_gradients":
        signed, delta = _integrated_gradients(
            model, x[:1].detach(), baseline[:1], decoder_input, tgt_mask, output_ids, chosen,
            steps, fused,
        )  # fmt: skip
        scores = signed.abs()
    elif method == "input_x_gradient":
        attributions = InputXGradient(log_probs).attribute(
            x, target=target, additional_forward_args=(row_of,)
        )
        signed = attributions.sum(-1)
        scores = signed.abs()
    else:
        gradient = Saliency(log_probs).attribute(
            x, target=target, additional_forward_args=(row_of,), abs=False
        )
        signed = gradient.sum(-1)
        scores = gradient.norm(dim=-1)
    return Attributions(method, _numpy(scores), _numpy(signed), delta)


def _integrated_gradients(
    model: EncoderDecoder,
    x: Tensor,
    baseline: Tensor,
    decoder_input: Tensor,
    tgt_mask: Tensor,
    target: Sequence[int],
    rows: Sequence[int],
    steps: int,
    settings: RunSettings,
) -> tuple[Tensor, float]:
    """Integrated gradients (Sundararajan et al., 2017, Eq. 1) of the decoder `rows` (each
    explaining its token of `target`), and their largest completeness gap: [rows, source
    tokens] signed, summed over d_model.

    The points x' + α(x − x') do not depend on the row, so one encoder pass over the `steps`
    points serves every row (its graph kept); each row then decodes only its own prefix (the
    decoder is causal, Section 3.2.3: positions after a row cannot change it) and takes one
    backward pass, so the rows' backward passes no longer run through the decoder positions
    after them. Captum's IntegratedGradients needs a copy of the sentence per row and point,
    which measured 2.7 times slower (the results agree to 1e-5, tests/runtime/test_attribution.py).
    The integral is Gauss-Legendre on [0, 1] with `steps` points, Captum's default rule."""
    nodes, weights = np.polynomial.legendre.leggauss(steps)
    alphas = torch.tensor((nodes + 1) / 2, dtype=x.dtype, device=x.device)
    step_weights = torch.tensor(weights / 2, dtype=x.dtype, device=x.device)
    assert model.generator is not None

    def log_prob(memory: Tensor, row: int) -> Tensor:
        """[points]: log p(row's written token | its prefix, the source) for each point."""
        prefix = decoder_input[:, : row + 1].expand(memory.size(0), -1)
        out = model.decode(memory, None, prefix, tgt_mask[:, : row + 1, : row + 1], settings)
        assert model.generator is not None
        log_probs: Tensor = model.generator(out.output[:, row])
        return log_probs[:, target[row]]

    path = (baseline + alphas.view(-1, 1, 1) * (x - baseline)).requires_grad_()
    memory = model.encode_token_vectors(path, None, settings).memory
    gradients = torch.stack(
        [
            torch.autograd.grad(log_prob(memory, row).sum(), path, retain_graph=n < len(rows) - 1)[
                0
            ]
            for n, row in enumerate(rows)
        ]
    )  # [rows, points, source tokens, d_model]
    averaged = (gradients * step_weights.view(1, -1, 1, 1)).sum(dim=1)
    signed = (averaged * (x - baseline)).sum(dim=-1).detach()
    with torch.no_grad():
        ends = model.encode_token_vectors(torch.cat([x, baseline]), None, settings).memory
        full = model.decode(ends, None, decoder_input.expand(2, -1), tgt_mask, settings).output
        written = torch.tensor(target, device=x.device)
        f_ends = model.generator(full).gather(-1, written.view(1, -1, 1).expand(2, -1, 1))[..., 0]
    change = (f_ends[0] - f_ends[1])[torch.tensor(list(rows), device=x.device)]
    delta = float((signed.sum(dim=-1) - change).abs().max())
    return signed, delta


def alignment_counts(
    scores: np.ndarray, gold_rows: Sequence[Sequence[int] | None]
) -> tuple[int, int, int]:
    """(|A ∩ G|, |A|, |G|) with A the argmax link of each row that has gold links (G)."""
    hits = predicted = gold = 0
    for row, sources in zip(np.asarray(scores), gold_rows):
        if not sources:
            continue
        predicted += 1
        gold += len(sources)
        hits += int(int(np.argmax(row)) in sources)
    return hits, predicted, gold


def alignment_error_rate(
    scores: np.ndarray, gold_rows: Sequence[Sequence[int] | None]
) -> float | None:
    """AER = 1 − 2·|A ∩ G| / (|A| + |G|) (Och & Ney, 2003, sure = possible links) of the argmax
    link of each row that has gold links, as model/evaluate.py scores the heads (None when no
    row has one)."""
    hits, predicted, gold = alignment_counts(scores, gold_rows)
    return None if predicted == 0 else 1 - 2 * hits / (predicted + gold)


def _numpy(t: Tensor) -> np.ndarray:
    array: np.ndarray[Any, Any] = t.detach().float().cpu().numpy()
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class SimilarityAttributions:
    """What made two texts similar for an encoder used as a sentence embedder (MiniLM's
    sentence-transformers use): f = cos(mean-pooled output of A, mean-pooled output of B), and
    `method`'s attribution of f to every token of both (`signed`, with `scores` their sizes, as
    for a translation: the gradient's length for saliency). For integrated gradients both texts
    move from the padding token's vectors at once, so Σ signed = f(x) − f(x') (`delta`: how far
    off, Captum's convergence delta)."""

    method: str
    similarity: float
    tokens: tuple[tuple[str, ...], tuple[str, ...]]
    scores: tuple[np.ndarray, np.ndarray]
    signed: tuple[np.ndarray, np.ndarray]
    delta: float | None = None


def mean_pooled(model: EncoderDecoder, vectors: Tensor, settings: RunSettings) -> Tensor:
    """[B, d_model]: the mean of the encoder's last layer over the tokens (all of them are real:
    one text, no padding), as sentence-transformers pools MiniLM."""
    return model.encode_token_vectors(vectors, None, settings).memory.mean(dim=1)


def similarity_attributions(
    loaded: LoadedModel,
    text_a: str,
    text_b: str,
    method: str,
    steps: int = 32,
    settings: RunSettings = DEFAULT_SETTINGS,
) -> SimilarityAttributions:
    """`method`'s attributions of the cosine similarity of two texts' mean-pooled encodings to
    each of their tokens."""
    from captum.attr import InputXGradient, IntegratedGradients, Saliency

    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    model, device = paper_model(loaded), loaded.device
    encoded = [loaded.tokenizer.encode(t, loaded.max_source_tokens) for t in (text_a, text_b)]
    if not all(e.ids for e in encoded):
        raise ValueError("both texts need a token the model reads")
    fused = replace(settings, capture=False)
    embed = model.src_embed.tokens
    with torch.no_grad():
        inputs = tuple(embed(torch.tensor([e.ids], device=device)) for e in encoded)
        baselines = tuple(
            embed(torch.full((1, len(e.ids)), model.config.pad_id, device=device)) for e in encoded
        )
    for x in inputs:
        x.requires_grad_()

    def cosine(a: Tensor, b: Tensor) -> Tensor:
        return torch.nn.functional.cosine_similarity(
            mean_pooled(model, a, fused), mean_pooled(model, b, fused), dim=-1
        )

    delta = None
    if method == "integrated_gradients":
        found, convergence = IntegratedGradients(cosine).attribute(
            inputs, baselines=baselines, n_steps=steps, return_convergence_delta=True
        )
        delta = float(convergence.abs().max())
        signed = tuple(a[0].sum(-1) for a in found)
        scores = tuple(s.abs() for s in signed)
    elif method == "input_x_gradient":
        found = InputXGradient(cosine).attribute(inputs)
        signed = tuple(a[0].sum(-1) for a in found)
        scores = tuple(s.abs() for s in signed)
    else:
        found = Saliency(cosine).attribute(inputs, abs=False)
        signed = tuple(a[0].sum(-1) for a in found)
        scores = tuple(a[0].norm(dim=-1) for a in found)
    with torch.no_grad():
        similarity = float(cosine(*inputs))
    return SimilarityAttributions(
        method,
        similarity,
        (tuple(encoded[0].tokens), tuple(encoded[1].tokens)),
        (_numpy(scores[0]), _numpy(scores[1])),
        (_numpy(signed[0]), _numpy(signed[1])),
        delta,
    )
