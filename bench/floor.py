"""The floor: how many floating-point operations a forward pass needs, and how fast this machine
multiplies matrices, so each timing can be read as a fraction of what the hardware allows.

Counting multiply-adds as 2 FLOPs, for n query positions attending over m key positions in a
layer of width d with h heads of d_k = d / h (Section 3.2, Eq. (1)) and an inner FFN width d_ff
(Section 3.3, Eq. (2)):

    projections W^Q, W^K, W^V, W^O      2·n·d·d (queries, output) + 2·m·d·d (keys, values) each
    scores Q K^T, all heads             2 · n · m · d_k · h = 2·n·m·d
    weights · V, all heads              2·n·m·d
    feed-forward W_1, W_2               2·n·d·d_ff each

So an encoder layer over n tokens costs 8·n·d² + 4·n²·d + 4·n·d·d_ff, and a decoder layer over
T target and S source tokens 8·T·d² (masked self-attention) + 4·T²·d + 4·T·d² + 4·S·d² (cross
attention: queries and output on T, keys and values on S) + 4·T·S·d + 4·T·d·d_ff. Softmax,
LayerNorm, GELU/ReLU, biases and embeddings are O(n·d) or O(h·n²) and left out: they are not
matrix multiplies and take a few percent of the FLOPs at these sizes (but not always a few
percent of the time).
"""

from __future__ import annotations

import torch

from model.transformer import TransformerConfig

from .timing import Stats, interleaved


def encoder_layer_flops(d: int, d_ff: int, n: int) -> int:
    return 8 * n * d * d + 4 * n * n * d + 4 * n * d * d_ff


def decoder_layer_flops(d: int, d_ff: int, target: int, source: int) -> int:
    self_attention = 8 * target * d * d + 4 * target * target * d
    cross_attention = 4 * target * d * d + 4 * source * d * d + 4 * target * source * d
    return self_attention + cross_attention + 4 * target * d * d_ff


def encoder_flops(config: TransformerConfig, n: int) -> int:
    """Matrix-multiply FLOPs of the encoder stack over n tokens."""
    return config.N * encoder_layer_flops(config.d_model, config.d_ff, n)


def encoder_decoder_flops(config: TransformerConfig, source: int, target: int) -> int:
    """Encoder over `source` tokens, then decoder over `target` tokens (no output projection)."""
    decoder = config.N * decoder_layer_flops(config.d_model, config.d_ff, target, source)
    return encoder_flops(config, source) + decoder


def generator_flops(config: TransformerConfig, positions: int) -> int:
    """The pre-softmax linear map to the vocabulary (Section 3.4) at `positions` positions."""
    return 2 * positions * config.d_model * config.tgt_vocab


def matmul_throughput(size: int, repeats: int) -> tuple[float, Stats]:
    """GFLOP/s of a float32 [size × size] @ [size × size] product (2·size³ FLOPs): the ceiling."""
    a, b = torch.randn(size, size), torch.randn(size, size)
    stats = interleaved({"matmul": lambda: torch.matmul(a, b)}, repeats, warmup=1)["matmul"]
    return 2 * size**3 / stats.median / 1e9, stats


def fraction_of_floor(flops: int, seconds: float, gflops_per_s: float) -> dict:
    """The floor time (FLOPs at the measured matmul rate), and how far the measured time is."""
    floor_s = flops / (gflops_per_s * 1e9)
    return {
        "flops": flops,
        "floor_s": floor_s,
        "achieved_gflops_per_s": flops / seconds / 1e9,
        "times_the_floor": seconds / floor_s,
    }
