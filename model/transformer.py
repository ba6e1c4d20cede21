"""The Transformer of "Attention Is All You Need" (Vaswani et al., 2017), Sections 3.1-3.5.

One readable file, laid out like the paper so the two can be read side by side. Sub-layers are
post-norm, as in the paper: LayerNorm(x + Dropout(Sublayer(x))).

Every forward method takes a `RunSettings`: the per-call choices a viewer makes (scale of the
attention logits, heads to ablate, positions on or off, a window r for restricted self-attention).
Nothing a caller chooses is stored on
the modules, so one model object can serve many users at once. Attention weights, queries and
keys are returned, not hooked, so no state is left behind by a call.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

ATTENTION_KINDS = ("encoder_self", "decoder_self", "cross")


@dataclass(frozen=True)
class TransformerConfig:
    """Hyper-parameters; the defaults are the paper's base model (Table 3)."""

    src_vocab: int
    tgt_vocab: int = 0  # 0: encoder only (e.g. a BERT-style pretrained encoder)
    N: int = 6
    d_model: int = 512
    d_ff: int = 2048
    h: int = 8
    dropout: float = 0.1
    max_len: int = 5000
    # Section 3.4: one weight matrix for both embeddings and the pre-softmax linear map.
    share_embeddings: bool = True
    # Options that let our blocks host other trained weights (BERT-style encoders).
    activation: str = "relu"  # "relu" (paper), "gelu" (BERT) or "silu" (Marian's swish)
    positions: str = "sinusoidal"  # "sinusoidal" (paper, Section 3.5) or "learned"
    type_vocab: int = 0  # token-type (segment) embeddings; 0 = none
    scale_embeddings: bool = True  # multiply embeddings by sqrt(d_model), Section 3.4
    embedding_norm: bool = False  # LayerNorm on the summed input embeddings (BERT)
    layer_norm_eps: float = 1e-5
    pad_id: int = 0
    # Where the sinusoids' sines and cosines go: "interleaved" (Section 3.5: sine at 2i, cosine at
    # 2i+1) or "halves" (Marian: the d_model/2 sines, then the cosines; the same vectors with
    # their dimensions reordered)
    sinusoids: str = "interleaved"
    # Pre-norm residual connections, x + Dropout(Sublayer(LayerNorm(x))), and a LayerNorm after
    # each stack (Xiong et al., 2020); False is the paper's post-norm (Section 3.1). Issue 47's
    # short runs compare the two on the translator.
    norm_first: bool = False

    def __post_init__(self) -> None:
        if self.d_model % self.h:
            raise ValueError(f"d_model={self.d_model} is not divisible by h={self.h}")
        if self.activation not in ("relu", "gelu", "silu"):
            raise ValueError(f"unknown activation {self.activation!r}")
        if self.sinusoids not in ("interleaved", "halves"):
            raise ValueError(f"unknown sinusoid layout {self.sinusoids!r}")
        if self.positions not in ("sinusoidal", "learned"):
            raise ValueError(f"unknown positions {self.positions!r}")

    @property
    def d_k(self) -> int:
        return self.d_model // self.h

    @property
    def is_encoder_decoder(self) -> bool:
        return self.tgt_vocab > 0


@dataclass(frozen=True)
class RunSettings:
    """Per-call settings. `scale=None` is the paper's 1/sqrt(d_k).

    `ablate` holds (kind, layer, head) triples whose head output is replaced by zeros before W^O.
    `window=r` restricts encoder and decoder self-attention to a neighbourhood: query i attends
    only to keys j with |i - j| <= r (Section 4, "self-attention could be restricted to
    considering only a neighborhood of size r"); None is the paper's full self-attention.
    Encoder-decoder attention is never restricted. The band is one more mask: it composes with
    the scale and with the decoder's causal mask (Section 3.2.3) as a logical and.

    `capture=False` computes Eq. (1) with torch's fused `scaled_dot_product_attention` (flash or
    memory-efficient kernels on a GPU) and keeps no weights: every record's `weights` is None.
    Training uses it on a GPU, and bench/gpu.py times it against the captured forward the views
    need; the outputs are the same function (tests/model/test_transformer.py).
    """

    scale: float | None = None
    ablate: frozenset[tuple[str, int, int]] = field(default_factory=frozenset)
    use_positions: bool = True
    window: int | None = None
    capture: bool = True

    def __post_init__(self) -> None:
        if self.scale is not None and not (math.isfinite(self.scale) and self.scale > 0):
            raise ValueError(f"the attention scale must be a positive number, got {self.scale}")
        if self.window is not None and (
            isinstance(self.window, bool) or not isinstance(self.window, int) or self.window < 1
        ):
            raise ValueError(
                f"the attention window r must be a whole number of positions >= 1, got "
                f"{self.window!r}"
            )
        object.__setattr__(self, "ablate", frozenset(self.ablate))
        for kind, _, _ in self.ablate:
            if kind not in ATTENTION_KINDS:
                raise ValueError(f"unknown attention kind {kind!r}")

    def heads_to_ablate(self, kind: str, layer: int) -> list[int]:
        return sorted(head for k, lay, head in self.ablate if k == kind and lay == layer)

    def attention_mask(
        self,
        kind: str,
        mask: Tensor | None,
        n_queries: int,
        n_keys: int,
        device: torch.device | None = None,
    ) -> Tensor | None:
        """`mask` (padding or causal, or None) and, for self-attention, the band of `window`."""
        if self.window is None or kind == "cross":
            return mask
        band = band_mask(n_queries, n_keys, self.window, device)
        return band if mask is None else mask & band


DEFAULT_SETTINGS = RunSettings()


# --- Section 5.4: Residual Dropout --------------------------------------------------------------


class Dropout(nn.Module):
    """Dropout (Section 5.4, P_drop = p): while training, each element is zeroed with probability
    p and the others are scaled by 1 / (1 - p); otherwise the identity. What nn.Dropout does, with
    its mask drawn as uniform numbers >= p (torch.rand, 2^-24 apart) instead of by torch's
    Bernoulli sampler, which took 20% of a one-thread training step on the CPU (torch.profiler).
    bench/train_dropout.py times a whole step against nn.Dropout's, side by side."""

    def __init__(self, p: float):
        super().__init__()
        if not 0 <= p < 1:
            raise ValueError(f"a dropout probability must be in [0, 1), got {p}")
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        if not self.training or self.p == 0:
            return x
        keep = torch.rand(x.shape, device=x.device) >= self.p
        return x * keep * (1 / (1 - self.p))

    def extra_repr(self) -> str:
        return f"p={self.p}"


# --- Section 3.2.1: Scaled Dot-Product Attention ------------------------------------------------


def attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    mask: Tensor | None = None,
    scale: float | None = None,
    dropout: nn.Module | None = None,
    out: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """Eq. (1): Attention(Q, K, V) = softmax(Q K^T * scale) V, with scale = 1/sqrt(d_k) by default.

    `mask` is broadcast against the logits; positions where it is False get weight exactly 0.
    Returns the output and the attention weights, written into `out` if given (without
    autograd only: a [B, h, q, k] slice of the stack's `AttentionWeights`).
    """
    if scale is None:
        scale = 1.0 / math.sqrt(query.size(-1))
    # In place after the product: the [B, h, q, k] logits are allocated once (same numbers as
    # `(Q K^T) * scale`; the product's backward needs Q and K, not its output).
    scores = torch.matmul(query, key.transpose(-2, -1)).mul_(scale)
    if mask is not None:
        scores.masked_fill_(~mask, float("-inf"))
    weights = scores.softmax(dim=-1) if out is None else torch.softmax(scores, -1, out=out)
    if dropout is not None:
        weights = dropout(weights)
    return torch.matmul(weights, value), weights


class AttentionRecord(NamedTuple):
    """What one attention sub-layer computed: weights [B, h, q, k] (None where the settings
    asked for no capture); queries, keys and values [B, h, n, d_k] (Figure 2: Q, K and V of every
    head, after their projections)."""

    weights: Tensor | None
    queries: Tensor
    keys: Tensor
    values: Tensor

    def captured(self) -> Tensor:
        """The weights; a forward with `capture=False` kept none, and asking for them is an error."""
        if self.weights is None:
            raise ValueError("this forward ran with capture=False and kept no attention weights")
        return self.weights


# --- Section 3.2.2: Multi-Head Attention ---------------------------------------------------------


class MultiHeadedAttention(nn.Module):
    """MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O, head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)."""

    def __init__(self, kind: str, layer: int, h: int, d_model: int, dropout: float):
        super().__init__()
        self.kind, self.layer = kind, layer  # where this sits, for per-call ablation
        self.h, self.d_k = h, d_model // h
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = Dropout(dropout)

    def split_heads(self, x: Tensor) -> Tensor:
        batch, length, _ = x.shape
        return x.view(batch, length, self.h, self.d_k).transpose(1, 2)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        mask: Tensor | None,
        settings: RunSettings,
        weights_out: Tensor | None = None,
    ) -> tuple[Tensor, AttentionRecord]:
        q = self.split_heads(self.w_q(query))
        k = self.split_heads(self.w_k(key))
        v = self.split_heads(self.w_v(value))
        mask = settings.attention_mask(self.kind, mask, q.size(2), k.size(2), q.device)
        if mask is not None:
            mask = mask.unsqueeze(1)  # same mask for every head
        weights: Tensor | None = None
        if settings.capture:
            heads, weights = attention(q, k, v, mask, settings.scale, self.dropout, weights_out)
        else:
            p = self.dropout.p if self.training else 0.0
            heads = F.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, dropout_p=p, scale=settings.scale
            )
        ablated = settings.heads_to_ablate(self.kind, self.layer)
        if ablated:
            keep = torch.ones(self.h, device=heads.device, dtype=heads.dtype)
            keep[ablated] = 0
            heads = heads * keep.view(1, self.h, 1, 1)
        batch, _, length, _ = heads.shape
        concat = heads.transpose(1, 2).reshape(batch, length, self.h * self.d_k)
        return self.w_o(concat), AttentionRecord(weights, q, k, v)


# --- Section 3.3: Position-wise Feed-Forward Networks --------------------------------------------


class PositionwiseFeedForward(nn.Module):
    """Eq. (2): FFN(x) = max(0, x W_1 + b_1) W_2 + b_2 (GELU instead of max(0, .) as an option)."""

    def __init__(self, d_model: int, d_ff: int, dropout: float, activation: str = "relu"):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        activations: dict[str, Callable[[Tensor], Tensor]] = {
            "relu": F.relu,
            "gelu": F.gelu,
            "silu": F.silu,
        }
        self.activation = activations[activation]
        self.dropout = Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        output: Tensor = self.w_2(self.dropout(self.activation(self.w_1(x))))
        return output


# --- Section 3.4 and 3.5: Embeddings and Positional Encoding -------------------------------------


class Embeddings(nn.Module):
    """Learned token embeddings, multiplied by sqrt(d_model) (Section 3.4)."""

    def __init__(self, vocab: int, d_model: int, scale: bool = True):
        super().__init__()
        self.lut = nn.Embedding(vocab, d_model)
        self.factor = math.sqrt(d_model) if scale else 1.0

    def forward(self, ids: Tensor) -> Tensor:
        vectors: Tensor = self.lut(ids)
        return vectors * self.factor


def sinusoidal_table(max_len: int, d_model: int) -> Tensor:
    """Section 3.5: PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(same)."""
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
    inverse_wavelength = torch.exp(
        torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(10000.0) / d_model)
    )
    table = torch.zeros(max_len, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(position * inverse_wavelength)
    table[:, 1::2] = torch.cos(position * inverse_wavelength[: d_model // 2])
    return table.float()


class PositionalEncoding(nn.Module):
    """Position information added to the embeddings: fixed sinusoids (paper) or learned vectors."""

    pe: Tensor  # the sinusoid table, a buffer (register_buffer below): not in the state dict

    def __init__(
        self, d_model: int, max_len: int, learned: bool = False, layout: str = "interleaved"
    ):
        super().__init__()
        self.learned = learned
        if learned:
            self.table = nn.Embedding(max_len, d_model)
        else:
            table = sinusoidal_table(max_len, d_model)
            if layout == "halves":
                table = torch.cat([table[:, 0::2], table[:, 1::2]], dim=1)
            self.register_buffer("pe", table, persistent=False)

    def forward(self, length: int) -> Tensor:
        """The encodings of positions 0..length-1, [length, d_model]."""
        if self.learned:
            return self.table.weight[:length]
        return self.pe[:length]


class InputEmbedding(nn.Module):
    """Token embedding + positional encoding (+ token types), then dropout (Section 5.4)."""

    def __init__(self, vocab: int, config: TransformerConfig):
        super().__init__()
        self.tokens = Embeddings(vocab, config.d_model, config.scale_embeddings)
        self.positions = PositionalEncoding(
            config.d_model,
            config.max_len,
            learned=config.positions == "learned",
            layout=config.sinusoids,
        )
        self.token_types = (
            nn.Embedding(config.type_vocab, config.d_model) if config.type_vocab else None
        )
        self.norm = (
            nn.LayerNorm(config.d_model, eps=config.layer_norm_eps)
            if config.embedding_norm
            else None
        )
        self.dropout = Dropout(config.dropout)

    def forward(self, ids: Tensor, settings: RunSettings) -> Tensor:
        return self.from_token_vectors(self.tokens(ids), settings)

    def from_token_vectors(self, x: Tensor, settings: RunSettings) -> Tensor:
        """The rest of the input embedding, from token vectors x [B, n, d_model] (the lookup
        times sqrt(d_model)): where gradient attributions to the input tokens start."""
        # Token types before positions: BERT's order of the sums, so its weights give its
        # numbers bit for bit (float addition is not associative).
        if self.token_types is not None:
            x = x + self.token_types.weight[0]  # single-segment input
        if settings.use_positions:
            x = x + self.positions(x.size(1))
        if self.norm is not None:
            x = self.norm(x)
        embedded: Tensor = self.dropout(x)
        return embedded


# --- Section 3.1: Encoder and Decoder Stacks -----------------------------------------------------


class SublayerConnection(nn.Module):
    """Post-norm residual connection, as in the paper: LayerNorm(x + Dropout(Sublayer(x))); with
    `norm_first`, pre-norm: x + Dropout(Sublayer(LayerNorm(x))), the sub-layer reading `input(x)`."""

    def __init__(self, d_model: int, dropout: float, eps: float, norm_first: bool = False):
        super().__init__()
        self.norm = nn.LayerNorm(d_model, eps=eps)
        self.dropout = Dropout(dropout)
        self.norm_first = norm_first

    def input(self, x: Tensor) -> Tensor:
        """What the sub-layer reads: x itself (post-norm) or LayerNorm(x) (pre-norm)."""
        normed: Tensor = self.norm(x) if self.norm_first else x
        return normed

    def forward(self, x: Tensor, sublayer_output: Tensor) -> Tensor:
        if self.norm_first:
            added: Tensor = x + self.dropout(sublayer_output)
            return added
        normed: Tensor = self.norm(x + self.dropout(sublayer_output))
        return normed


def sublayer_input(connection: nn.Module, x: Tensor) -> Tensor:
    """`SublayerConnection.input` of a ModuleList entry (typed for the checker)."""
    assert isinstance(connection, SublayerConnection)
    return connection.input(x)


class EncoderLayer(nn.Module):
    """Self-attention, then the feed-forward network, each in a SublayerConnection."""

    def __init__(self, layer: int, config: TransformerConfig):
        super().__init__()
        c = config
        self.self_attn = MultiHeadedAttention("encoder_self", layer, c.h, c.d_model, c.dropout)
        self.feed_forward = PositionwiseFeedForward(c.d_model, c.d_ff, c.dropout, c.activation)
        self.sublayer = nn.ModuleList(
            SublayerConnection(c.d_model, c.dropout, c.layer_norm_eps, c.norm_first)
            for _ in range(2)
        )

    def forward(
        self,
        x: Tensor,
        mask: Tensor | None,
        settings: RunSettings,
        weights_out: Tensor | None = None,
    ) -> tuple[Tensor, AttentionRecord]:
        h = sublayer_input(self.sublayer[0], x)
        attended, record = self.self_attn(h, h, h, mask, settings, weights_out)
        x = self.sublayer[0](x, attended)
        return self.sublayer[1](x, self.feed_forward(sublayer_input(self.sublayer[1], x))), record


class DecoderLayer(nn.Module):
    """Masked self-attention, encoder-decoder attention, then the feed-forward network."""

    def __init__(self, layer: int, config: TransformerConfig):
        super().__init__()
        c = config
        self.self_attn = MultiHeadedAttention("decoder_self", layer, c.h, c.d_model, c.dropout)
        self.src_attn = MultiHeadedAttention("cross", layer, c.h, c.d_model, c.dropout)
        self.feed_forward = PositionwiseFeedForward(c.d_model, c.d_ff, c.dropout, c.activation)
        self.sublayer = nn.ModuleList(
            SublayerConnection(c.d_model, c.dropout, c.layer_norm_eps, c.norm_first)
            for _ in range(3)
        )

    def forward(
        self,
        x: Tensor,
        memory: Tensor,
        src_mask: Tensor | None,
        tgt_mask: Tensor | None,
        settings: RunSettings,
        weights_out: tuple[Tensor | None, Tensor | None] = (None, None),
    ) -> tuple[Tensor, AttentionRecord, AttentionRecord]:
        self_out, cross_out = weights_out
        h = sublayer_input(self.sublayer[0], x)
        attended, self_record = self.self_attn(h, h, h, tgt_mask, settings, self_out)
        x = self.sublayer[0](x, attended)
        h = sublayer_input(self.sublayer[1], x)
        attended, cross_record = self.src_attn(h, memory, memory, src_mask, settings, cross_out)
        x = self.sublayer[1](x, attended)
        ffn = self.feed_forward(sublayer_input(self.sublayer[2], x))
        return self.sublayer[2](x, ffn), self_record, cross_record


def weight_stack(
    n_layers: int, like: Tensor, n_queries: int, n_keys: int, h: int, capture: bool = True
) -> Tensor | None:
    """Without autograd, one [N, B, h, q, k] tensor that every layer's softmax writes its
    weights into: a caller that keeps them all (a Trace) takes them as they are, with no
    per-layer allocation and no copy into a stack afterwards. With autograd, None: `out=` has
    no gradient, and training keeps no weights; without capture, None too."""
    if torch.is_grad_enabled() or not capture:
        return None
    shape = (n_layers, like.size(0), h, n_queries, n_keys)
    if like.device.type == "cpu" and like.dtype == torch.float32:
        # numpy asks the kernel for transparent huge pages for a large array, torch's allocator
        # does not: faulting a 512-token MiniLM stack (75 MB) in 4 KiB pages took 33 of the 37
        # ms of writing it, 8.5 ms with huge pages (measured here).
        return torch.from_numpy(np.empty(shape, dtype=np.float32))
    return like.new_empty(shape)


class EncoderOutput(NamedTuple):
    memory: Tensor  # [B, S, d_model], the output of the last layer
    attention: list[AttentionRecord]  # one per layer
    hidden_states: list[Tensor]  # the input embedding and the output of every layer
    weights: Tensor | None = None  # [N, B, h, S, S], every record's weights (no autograd)


class DecoderOutput(NamedTuple):
    output: Tensor  # [B, T, d_model]
    self_attention: list[AttentionRecord]
    cross_attention: list[AttentionRecord]
    self_weights: Tensor | None = None  # [N, B, h, T, T] (no autograd)
    cross_weights: Tensor | None = None  # [N, B, h, T, S] (no autograd)


def final_norm(config: TransformerConfig) -> nn.LayerNorm | None:
    """The LayerNorm a pre-norm stack ends with (its layers' outputs are not normalised)."""
    if not config.norm_first:
        return None
    return nn.LayerNorm(config.d_model, eps=config.layer_norm_eps)


class Encoder(nn.Module):
    """A stack of N identical encoder layers (Section 3.1)."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.h = config.h
        self.layers = nn.ModuleList(EncoderLayer(i, config) for i in range(config.N))
        self.norm = final_norm(config)

    def forward(self, x: Tensor, mask: Tensor | None, settings: RunSettings) -> EncoderOutput:
        records: list[AttentionRecord] = []
        hidden = [x]
        length = x.size(1)
        weights = weight_stack(len(self.layers), x, length, length, self.h, settings.capture)
        for i, layer in enumerate(self.layers):
            x, record = layer(x, mask, settings, None if weights is None else weights[i])
            records.append(record)
            hidden.append(x)
        memory = x if self.norm is None else self.norm(x)
        return EncoderOutput(memory, records, hidden, weights)


class Decoder(nn.Module):
    """A stack of N identical decoder layers (Section 3.1)."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.h = config.h
        self.layers = nn.ModuleList(DecoderLayer(i, config) for i in range(config.N))
        self.norm = final_norm(config)

    def forward(
        self,
        x: Tensor,
        memory: Tensor,
        src_mask: Tensor | None,
        tgt_mask: Tensor | None,
        settings: RunSettings,
    ) -> DecoderOutput:
        self_records: list[AttentionRecord] = []
        cross_records: list[AttentionRecord] = []
        n, length = len(self.layers), x.size(1)
        self_weights = weight_stack(n, x, length, length, self.h, settings.capture)
        cross_weights = weight_stack(n, x, length, memory.size(1), self.h, settings.capture)
        for i, layer in enumerate(self.layers):
            outs: tuple[Tensor | None, Tensor | None] = (None, None)
            if self_weights is not None and cross_weights is not None:  # both, or neither
                outs = (self_weights[i], cross_weights[i])
            x, self_record, cross_record = layer(x, memory, src_mask, tgt_mask, settings, outs)
            self_records.append(self_record)
            cross_records.append(cross_record)
        if self.norm is not None:
            x = self.norm(x)
        return DecoderOutput(x, self_records, cross_records, self_weights, cross_weights)


class Generator(nn.Module):
    """The final linear map and softmax that turn decoder output into next-token log-probabilities."""

    def __init__(self, d_model: int, vocab: int):
        super().__init__()
        self.proj = nn.Linear(d_model, vocab)

    def forward(self, x: Tensor) -> Tensor:
        return F.log_softmax(self.proj(x), dim=-1)


def padding_mask(ids: Tensor, pad_id: int) -> Tensor:
    """[B, 1, S]: True for real tokens, so padding keys get weight 0."""
    return (ids != pad_id).unsqueeze(-2)


def subsequent_mask(size: int, device: torch.device | None = None) -> Tensor:
    """[1, T, T]: position i may attend to positions <= i only (Section 3.2.3)."""
    return torch.tril(torch.ones(size, size, dtype=torch.bool, device=device)).unsqueeze(0)


def band_mask(
    n_queries: int, n_keys: int, window: int, device: torch.device | None = None
) -> Tensor:
    """[1, q, k]: query i may attend to key j only when |i - j| <= window (Section 4, restricted
    self-attention with a neighbourhood of size r = window around each position)."""
    i = torch.arange(n_queries, device=device).unsqueeze(1)
    j = torch.arange(n_keys, device=device).unsqueeze(0)
    return ((i - j).abs() <= window).unsqueeze(0)


class EncoderDecoder(nn.Module):
    """The whole model (Figure 1). For an encoder-only config, decoder parts are None."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = config
        self.src_embed = InputEmbedding(config.src_vocab, config)
        self.encoder = Encoder(config)
        self.tgt_embed: InputEmbedding | None = None
        self.decoder: Decoder | None = None
        self.generator: Generator | None = None
        if config.is_encoder_decoder:
            self.tgt_embed = InputEmbedding(config.tgt_vocab, config)
            self.decoder = Decoder(config)
            self.generator = Generator(config.d_model, config.tgt_vocab)
            if config.share_embeddings:
                if config.src_vocab != config.tgt_vocab:
                    raise ValueError("shared embeddings need one vocabulary size for both sides")
                self.tgt_embed.tokens.lut.weight = self.src_embed.tokens.lut.weight
                self.generator.proj.weight = self.src_embed.tokens.lut.weight

    def encode(
        self, src: Tensor, src_mask: Tensor | None, settings: RunSettings = DEFAULT_SETTINGS
    ) -> EncoderOutput:
        encoded: EncoderOutput = self.encoder(self.src_embed(src, settings), src_mask, settings)
        return encoded

    def encode_token_vectors(
        self, vectors: Tensor, src_mask: Tensor | None, settings: RunSettings = DEFAULT_SETTINGS
    ) -> EncoderOutput:
        """`encode` from source token vectors instead of ids (see `from_token_vectors`), so a
        gradient with respect to them needs no hook on the shared model."""
        x = self.src_embed.from_token_vectors(vectors, settings)
        encoded: EncoderOutput = self.encoder(x, src_mask, settings)
        return encoded

    def decode(
        self,
        memory: Tensor,
        src_mask: Tensor | None,
        tgt: Tensor,
        tgt_mask: Tensor | None,
        settings: RunSettings = DEFAULT_SETTINGS,
    ) -> DecoderOutput:
        if self.tgt_embed is None or self.decoder is None:
            raise ValueError("an encoder-only model has no decoder")
        decoded: DecoderOutput = self.decoder(
            self.tgt_embed(tgt, settings), memory, src_mask, tgt_mask, settings
        )
        return decoded

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None,
        tgt_mask: Tensor | None,
        settings: RunSettings = DEFAULT_SETTINGS,
    ) -> DecoderOutput:
        encoded = self.encode(src, src_mask, settings)
        return self.decode(encoded.memory, src_mask, tgt, tgt_mask, settings)


def make_model(
    config: TransformerConfig, seed: int | None = None, embedding_init: str = "xavier"
) -> EncoderDecoder:
    """Build a model; matrices get Glorot-uniform initialisation as in the Annotated Transformer.
    `embedding_init="normal"` draws the token embeddings from N(0, 1/d_model) instead, as
    tensor2tensor and fairseq do: times sqrt(d_model) (Section 3.4) a token then weighs about as
    much as its positional encoding, where Glorot's bound for a large vocabulary makes it a
    quarter of that."""
    if embedding_init not in ("xavier", "normal"):
        raise ValueError(f"unknown embedding_init {embedding_init!r}")
    if seed is not None:
        torch.manual_seed(seed)
    model = EncoderDecoder(config)
    for p in model.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    if embedding_init == "normal":
        for embed in (model.src_embed, model.tgt_embed):
            if embed is not None:
                nn.init.normal_(embed.tokens.lut.weight, 0.0, config.d_model**-0.5)
    return model
