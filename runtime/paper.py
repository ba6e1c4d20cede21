"""Read-only looks at a loaded model for the paper views: the output projection W^O of Figure 2,
the maximum path length of restricted self-attention (Section 4, Table 1), and Table 1's
complexity per layer measured on this machine.

Nothing here changes the shared model: weights are read under inference mode, and the timings
feed random inputs through the model's own sub-layers without touching their parameters.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
import torch

from model.transformer import (
    DEFAULT_SETTINGS,
    DecoderLayer,
    EncoderDecoder,
    EncoderLayer,
    MultiHeadedAttention,
    attention,
)

# --- Section 3.2.2: the projections of one attention sub-layer ----------------------------------


def attention_module(model: EncoderDecoder, kind: str, layer: int) -> MultiHeadedAttention:
    """The MultiHeadedAttention of `kind` ("encoder_self", "decoder_self", "cross") in `layer`."""
    # nn.ModuleList holds plain Modules for the type checker; the stacks hold only these layers.
    if kind == "encoder_self":
        return cast(EncoderLayer, model.encoder.layers[layer]).self_attn
    if model.decoder is None:
        raise ValueError(f"an encoder-only model has no {kind} attention")
    decoder_layer = cast(DecoderLayer, model.decoder.layers[layer])
    if kind == "decoder_self":
        return decoder_layer.self_attn
    if kind == "cross":
        return decoder_layer.src_attn
    raise ValueError(f"unknown attention kind {kind!r}")


def output_projection(
    model: EncoderDecoder, kind: str, layer: int
) -> tuple[np.ndarray, np.ndarray]:
    """W^O of Section 3.2.2 as (weight [d_model, h·d_v], bias [d_model]), float64 copies.

    MultiHead(Q, K, V) = Concat(head_1, …, head_h) W^O: with torch's Linear, the output row is
    concat @ weight.T + bias.
    """
    linear = attention_module(model, kind, layer).w_o
    with torch.inference_mode():
        weight = linear.weight.detach().double().cpu().numpy()
        bias = linear.bias.detach().double().cpu().numpy()
    return weight, bias


# --- Section 4 and Table 1: maximum path length ---------------------------------------------------


def path_lengths(n: int, window: int | None, causal: bool = False) -> np.ndarray:
    """[i, j]: how many self-attention layers information at position j needs to reach i.

    With full self-attention every position reads every other in one layer (Table 1: O(1)). With
    a window r (Section 4: "a neighborhood of size r") a layer moves information at most r
    positions, so the receptive field grows by r a layer and j reaches i after ⌈|i − j| / r⌉
    layers (0 for i = j). Under the decoder's causal mask information only flows forward: j > i
    never reaches i (inf).
    """
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    distance = np.abs(i - j).astype(np.float64)
    layers: np.ndarray
    if window is None:
        layers = np.minimum(distance, 1.0)
    else:
        layers = np.ceil(distance / window)
    if causal:
        layers = np.where(j > i, np.inf, layers)
    return layers


def max_path_length(n: int, window: int | None) -> int:
    """The longest of the shortest paths between two of n positions: ⌈(n − 1) / r⌉ layers with a
    window r, 1 with full self-attention, 0 for a single position (Table 1: O(n/r) and O(1)).
    The same under the causal mask, over the pairs that can reach each other at all."""
    if n <= 1:
        return 0
    return 1 if window is None else math.ceil((n - 1) / window)


# --- Table 1: complexity per layer, measured ------------------------------------------------------

TIMING_LENGTHS = (16, 32, 64, 128, 256, 512, 1024, 2048)
TIMING_ROUNDS = 5
# The attention weights of one call are h·n² floats; past this many bytes a length is skipped.
TIMING_MAX_WEIGHT_BYTES = 256 * 2**20
TIMED_PARTS = ("eq1", "projections", "attention", "ffn")
PART_LABELS = {
    "eq1": "Eq. (1): QKᵀ, softmax, ·V over all heads",
    "projections": "W^Q, W^K, W^V, W^O",
    "attention": "self-attention sub-layer (all of it)",
    "ffn": "feed-forward sub-layer, Eq. (2)",
}


def flop_counts(n: int, d_model: int, d_ff: int) -> dict[str, int]:
    """Floating-point operations (a multiply-add = 2) of one encoder layer's parts on n tokens.

    Eq. (1) over all heads: QKᵀ is h·n²·d_k = n²·d multiply-adds and the weights times V as many,
    4·n²·d in all: Table 1's O(n²·d). The four projections W^Q, W^K, W^V, W^O: 8·n·d². The
    feed-forward network: 4·n·d·d_ff. Both position-wise parts are O(n·d²). Softmax, biases and
    activations are left out (O(h·n²) and O(n·d)).
    """
    return {
        "eq1": 4 * n * n * d_model,
        "projections": 8 * n * d_model * d_model,
        "attention": 4 * n * n * d_model + 8 * n * d_model * d_model,
        "ffn": 4 * n * d_model * d_ff,
    }


def predicted_crossover(d_model: int, d_ff: int, part: str = "attention") -> float:
    """The n at which `part` and the feed-forward sub-layer need as many operations.

    Eq. (1) alone: 4n²d = 4nd·d_ff at n = d_ff. The whole self-attention sub-layer:
    4n²d + 8nd² = 4nd·d_ff at n = d_ff − 2d (the paper's base model: 1,024 = 2d).
    """
    if part == "eq1":
        return float(d_ff)
    return float(max(d_ff - 2 * d_model, 0))


@dataclass(frozen=True)
class SublayerTimings:
    """Medians (ms) of each part of encoder layer 1 at each length, measured interleaved."""

    lengths: tuple[int, ...]
    medians_ms: dict[str, tuple[float, ...]]  # part -> one median per length
    rounds: int
    threads: int
    device: str
    d_model: int
    d_ff: int
    h: int
    seconds: float  # the whole measurement, wall clock

    def ratio(self, part: str = "attention") -> np.ndarray:
        """Median time of `part` over the feed-forward sub-layer's, per length."""
        ratio: np.ndarray = np.asarray(self.medians_ms[part]) / np.asarray(self.medians_ms["ffn"])
        return ratio


def timing_lengths(h: int, lengths: Sequence[int] = TIMING_LENGTHS) -> tuple[int, ...]:
    """The lengths whose h·n² float32 attention weights fit TIMING_MAX_WEIGHT_BYTES."""
    return tuple(n for n in lengths if 4 * h * n * n <= TIMING_MAX_WEIGHT_BYTES)


def time_sublayers(
    model: EncoderDecoder,
    lengths: Sequence[int] = TIMING_LENGTHS,
    rounds: int = TIMING_ROUNDS,
    seed: int = 0,
) -> SublayerTimings:
    """Time Eq. (1), the projections, the whole self-attention sub-layer and the feed-forward
    sub-layer of encoder layer 1 on random inputs [1, n, d_model], for each n.

    Each length gets one warm-up call of every part, then `rounds` rounds in which the parts run
    one after another (interleaved, so a busy moment of a shared machine hits all of them), and
    the median of each part is kept. Table 1's "complexity per layer" is what is measured.
    """
    layer = cast(EncoderLayer, model.encoder.layers[0])  # a ModuleList of EncoderLayers
    mha, ffn = layer.self_attn, layer.feed_forward
    config = model.config
    device = next(model.parameters()).device
    generator = torch.Generator().manual_seed(seed)
    kept = timing_lengths(config.h, lengths)
    medians: dict[str, list[float]] = {part: [] for part in TIMED_PARTS}
    started = time.perf_counter()
    with torch.inference_mode():
        for n in kept:
            x = torch.randn(1, n, config.d_model, generator=generator).to(device)
            q, k, v = (mha.split_heads(linear(x)) for linear in (mha.w_q, mha.w_k, mha.w_v))
            # Each default argument binds this round's tensors, so the calls take optional ones.
            parts: dict[str, Callable[..., object]] = {
                "eq1": lambda q=q, k=k, v=v: attention(q, k, v),
                "projections": lambda x=x: (mha.w_q(x), mha.w_k(x), mha.w_v(x), mha.w_o(x)),
                "attention": lambda x=x: mha(x, x, x, None, DEFAULT_SETTINGS),
                "ffn": lambda x=x: ffn(x),
            }
            samples: dict[str, list[float]] = {part: [] for part in TIMED_PARTS}
            for part in TIMED_PARTS:
                _timed(parts[part], device)  # warm-up
            for _ in range(rounds):
                for part in TIMED_PARTS:
                    samples[part].append(_timed(parts[part], device))
            for part in TIMED_PARTS:
                medians[part].append(statistics.median(samples[part]))
            del q, k, v, x
    return SublayerTimings(
        lengths=kept,
        medians_ms={part: tuple(values) for part, values in medians.items()},
        rounds=rounds,
        threads=torch.get_num_threads(),
        device=str(device),
        d_model=config.d_model,
        d_ff=config.d_ff,
        h=config.h,
        seconds=time.perf_counter() - started,
    )


def _timed(call: Callable[[], object], device: torch.device) -> float:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    started = time.perf_counter()
    call()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return (time.perf_counter() - started) * 1e3


def crossover(lengths: Sequence[int], ratio: Sequence[float]) -> float | None:
    """The first n where `ratio` rises through 1, interpolated on log-log axes; None when it does
    not cross within the measured lengths."""
    for n0, n1, r0, r1 in zip(lengths, lengths[1:], ratio, ratio[1:]):
        if r0 < 1 <= r1:
            if r1 == r0:
                return float(n1)
            t = (0 - math.log(r0)) / (math.log(r1) - math.log(r0))
            return float(math.exp(math.log(n0) + t * (math.log(n1) - math.log(n0))))
    return None
