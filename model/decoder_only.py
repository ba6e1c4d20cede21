"""A decoder-only language model of today's kind (Llama: SmolLM2), beside the paper's model.

It is the paper's decoder (Section 3.1) without encoder-decoder attention, with the changes
language models made after 2017, each named where it is built:

- pre-norm residual blocks, x + Sublayer(RMSNorm(x)) (RMSNorm: Zhang & Sennrich, 2019, Eq. 4),
  where the paper has LayerNorm(x + Sublayer(x));
- rotary position embeddings (RoPE: Su et al., 2021, Eq. 34) applied to q and k in every layer,
  where the paper adds sinusoids to the input once (Section 3.5);
- grouped-query attention (Ainslie et al., 2023): h query heads share h_kv key/value heads, query
  head i reading key/value head i // (h / h_kv);
- a SwiGLU feed-forward network (Shazeer, 2020, Eq. 6) where the paper has ReLU (Eq. 2);
- the output projection tied to the token embedding (as Section 3.4 shares it).

GPT-2 (Radford et al., 2019), the step between the paper and Llama, is the same file with the
config's options: pre-norm with LayerNorm, a learned position table added once, a GELU
feed-forward network and biases (`DecoderOnlyConfig.norm`, `positions`, `ffn`, `out_bias`).

Attention itself is the paper's Eq. (1), `transformer.attention`, under the causal mask
(Section 3.2.3), so every run setting of the paper's model (the scale, ablated heads, the
window r, positions off) applies here unchanged; ablation names these heads `decoder_self`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .transformer import (
    DEFAULT_SETTINGS,
    AttentionRecord,
    RunSettings,
    attention,
    weight_stack,
)

KIND = "decoder_self"  # a decoder-only model's one attention kind: masked self-attention


@dataclass(frozen=True)
class DecoderOnlyConfig:
    """Hyper-parameters; the defaults are SmolLM2-135M's (its GGUF metadata)."""

    vocab: int = 49152
    N: int = 30
    d_model: int = 576
    d_ff: int = 1536
    h: int = 9
    h_kv: int = 3
    rope_base: float = 100_000.0
    norm_eps: float = 1e-5
    max_len: int = 8192
    tie_embeddings: bool = True
    # biases on the q, k and v projections (Qwen2); Llama and SmolLM2 have none
    qkv_bias: bool = False
    # GPT-2 (2019), the design before Llama's: LayerNorm (with a bias) where Llama has RMSNorm,
    # a learned position table added to the input once (as BERT's) where Llama rotates q and k,
    # a two-matrix GELU network (the paper's Eq. 2 with GELU) where Llama has SwiGLU, and a bias
    # on every projection.
    norm: str = "rms"  # "rms" or "layer"
    positions: str = "rotary"  # "rotary" or "learned"
    ffn: str = "swiglu"  # "swiglu" or "gelu" (GELU's tanh approximation, as GPT-2's gelu_new)
    out_bias: bool = False  # a bias on W^O and on the feed-forward's matrices (GPT-2)

    def __post_init__(self) -> None:
        for name, allowed in (
            ("norm", ("rms", "layer")),
            ("positions", ("rotary", "learned")),
            ("ffn", ("swiglu", "gelu")),
        ):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}")
        if self.d_model % self.h or self.h % self.h_kv or (self.d_model // self.h) % 2:
            raise ValueError(
                f"d_model {self.d_model} must split into h={self.h} heads of even size, and h "
                f"into h_kv={self.h_kv} groups"
            )

    @property
    def d_k(self) -> int:
        return self.d_model // self.h

    @property
    def group(self) -> int:
        """Query heads per key/value head."""
        return self.h // self.h_kv

    # What the views ask of any model's config (TransformerConfig has the same names).
    is_encoder_decoder = False


class RMSNorm(nn.Module):
    """x / RMS(x) * g (Zhang & Sennrich, 2019, Eq. 4): LayerNorm without the mean or a bias."""

    def __init__(self, d: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x: Tensor) -> Tensor:
        x32 = x.float()
        normed = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * normed.to(x.dtype)


def rope_angles(positions: Tensor, d_k: int, base: float) -> tuple[Tensor, Tensor]:
    """cos and sin of m * theta_i for each position m and theta_i = base^(-2i/d_k), i < d_k/2
    (RoFormer Eq. 15), each [n, d_k] with the d_k/2 angles written twice (the half-split layout)."""
    theta = base ** (-torch.arange(0, d_k, 2, dtype=torch.float32, device=positions.device) / d_k)
    angles = positions.float()[:, None] * theta[None, :]
    angles = torch.cat([angles, angles], dim=-1)
    return angles.cos(), angles.sin()


def rotate(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    """RoPE (RoFormer Eq. 34): rotate each pair (x_i, x_{i + d_k/2}) by the angle m * theta_i.
    Rotating q at m and k at n makes q . k depend on m - n only (Eq. 16)."""
    half = x.size(-1) // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rotated * sin


class GroupedQueryAttention(nn.Module):
    """Multi-head attention (Section 3.2.2) whose h query heads share h_kv key/value heads."""

    def __init__(self, config: DecoderOnlyConfig):
        super().__init__()
        self.config = config
        d, d_k = config.d_model, config.d_k
        self.w_q = nn.Linear(d, config.h * d_k, bias=config.qkv_bias)
        self.w_k = nn.Linear(d, config.h_kv * d_k, bias=config.qkv_bias)
        self.w_v = nn.Linear(d, config.h_kv * d_k, bias=config.qkv_bias)
        self.w_o = nn.Linear(config.h * d_k, d, bias=config.out_bias)

    def forward(
        self,
        x: Tensor,
        rope: tuple[Tensor, Tensor] | None,
        mask: Tensor,
        layer: int,
        settings: RunSettings,
        past: tuple[Tensor, Tensor] | None = None,
        out: Tensor | None = None,
    ) -> tuple[Tensor, AttentionRecord, tuple[Tensor, Tensor]]:
        """`past`: the keys and values of earlier positions (generation's cache), [B, h_kv, m, d_k];
        `out`: where the softmax writes the weights (a layer's slice of `weight_stack`)."""
        c = self.config
        b, n, _ = x.shape
        q = self.w_q(x).view(b, n, c.h, c.d_k).transpose(1, 2)
        k = self.w_k(x).view(b, n, c.h_kv, c.d_k).transpose(1, 2)
        v = self.w_v(x).view(b, n, c.h_kv, c.d_k).transpose(1, 2)
        if rope is not None:
            q, k = rotate(q, *rope), rotate(k, *rope)
        if past is not None:
            k, v = torch.cat([past[0], k], dim=2), torch.cat([past[1], v], dim=2)
        # Each key/value head serves `group` query heads in a row (heads 0-2 read group 0, ...).
        k_heads = k.repeat_interleave(c.group, dim=1)
        v_heads = v.repeat_interleave(c.group, dim=1)
        if settings.capture:
            heads, weights = attention(q, k_heads, v_heads, mask, settings.scale, out=out)
        else:
            heads = F.scaled_dot_product_attention(
                q, k_heads, v_heads, attn_mask=mask, scale=settings.scale
            )
            weights = None
        ablated = settings.heads_to_ablate(KIND, layer)
        if ablated:
            heads = heads.clone()
            heads[:, ablated] = 0.0
        heads = heads.transpose(1, 2).reshape(b, n, c.h * c.d_k)
        return self.w_o(heads), AttentionRecord(weights, q, k_heads, v_heads), (k, v)


class SwiGLU(nn.Module):
    """FFN_SwiGLU(x) = (Swish(x W_gate) * x W_up) W_down (Shazeer, 2020, Eq. 6, without biases)."""

    def __init__(self, config: DecoderOnlyConfig):
        super().__init__()
        self.w_gate = nn.Linear(config.d_model, config.d_ff, bias=False)
        self.w_up = nn.Linear(config.d_model, config.d_ff, bias=False)
        self.w_down = nn.Linear(config.d_ff, config.d_model, bias=False)

    def forward(self, x: Tensor) -> Tensor:
        out: Tensor = self.w_down(F.silu(self.w_gate(x)) * self.w_up(x))
        return out


class GeluFFN(nn.Module):
    """FFN(x) = GELU(x W_1 + b_1) W_2 + b_2: the paper's Eq. (2) with GELU for ReLU (GPT-2)."""

    def __init__(self, config: DecoderOnlyConfig):
        super().__init__()
        self.w_1 = nn.Linear(config.d_model, config.d_ff, bias=config.out_bias)
        self.w_2 = nn.Linear(config.d_ff, config.d_model, bias=config.out_bias)

    def forward(self, x: Tensor) -> Tensor:
        out: Tensor = self.w_2(F.gelu(self.w_1(x), approximate="tanh"))
        return out


def make_norm(config: DecoderOnlyConfig) -> nn.Module:
    if config.norm == "layer":
        return nn.LayerNorm(config.d_model, eps=config.norm_eps)
    return RMSNorm(config.d_model, config.norm_eps)


class Block(nn.Module):
    """One pre-norm decoder layer: x + Attention(Norm(x)), then x + FFN(Norm(x))."""

    def __init__(self, config: DecoderOnlyConfig):
        super().__init__()
        self.attention_norm = make_norm(config)
        self.self_attn = GroupedQueryAttention(config)
        self.ffn_norm = make_norm(config)
        self.feed_forward: nn.Module = SwiGLU(config) if config.ffn == "swiglu" else GeluFFN(config)

    def forward(
        self,
        x: Tensor,
        rope: tuple[Tensor, Tensor] | None,
        mask: Tensor,
        layer: int,
        settings: RunSettings,
        past: tuple[Tensor, Tensor] | None,
        out: Tensor | None,
    ) -> tuple[Tensor, AttentionRecord, tuple[Tensor, Tensor]]:
        attended, record, kv = self.self_attn(
            self.attention_norm(x), rope, mask, layer, settings, past, out
        )
        x = x + attended
        return x + self.feed_forward(self.ffn_norm(x)), record, kv


class CausalLMOutput(NamedTuple):
    logits: Tensor  # [B, n, vocab]: row t scores the token after position t
    attention: list[AttentionRecord]  # one per layer; keys and values repeated per query head
    hidden_states: list[Tensor]  # the residual stream: the embedding, then after every layer
    weights: Tensor | None  # [N, B, h, n, m], every layer's weights (None without capture)
    cache: list[tuple[Tensor, Tensor]]  # each layer's keys and values, [B, h_kv, m, d_k]


class CausalLM(nn.Module):
    """Token embedding (plus GPT-2's learned positions), N pre-norm blocks, a final norm, logits
    through the tied embedding (or an output matrix of its own)."""

    def __init__(self, config: DecoderOnlyConfig):
        super().__init__()
        self.config = config
        self.tokens = nn.Embedding(config.vocab, config.d_model)
        # GPT-2's learned position table (Section 3.5's alternative, as BERT's); None with RoPE
        self.positions = (
            nn.Embedding(config.max_len, config.d_model) if config.positions == "learned" else None
        )
        self.layers = nn.ModuleList(Block(config) for _ in range(config.N))
        self.norm = make_norm(config)
        self.output = (
            None if config.tie_embeddings else nn.Linear(config.d_model, config.vocab, bias=False)
        )

    def forward(
        self,
        ids: Tensor,
        settings: RunSettings = DEFAULT_SETTINGS,
        past: list[tuple[Tensor, Tensor]] | None = None,
    ) -> CausalLMOutput:
        """Logits for `ids` [B, n], read after the `past` positions' cached keys and values."""
        c = self.config
        start = 0 if past is None else past[0][0].size(2)
        n = ids.size(1)
        positions = torch.arange(start, start + n, device=ids.device)
        rotary = settings.use_positions and self.positions is None
        rope = rope_angles(positions, c.d_k, c.rope_base) if rotary else None
        # The causal mask (Section 3.2.3) and, with a window r, the band |i - j| <= r (Section 4),
        # for queries at positions start..start+n-1 over keys 0..start+n-1.
        i = positions[:, None]
        j = torch.arange(start + n, device=ids.device)[None, :]
        allowed = j <= i
        if settings.window is not None:
            allowed = allowed & (i - j <= settings.window)
        mask = allowed[None, None]  # [1, 1, n, start + n]
        x = self.tokens(ids)
        if self.positions is not None and settings.use_positions:
            x = x + self.positions(positions)
        # without autograd every layer's softmax writes into one stack: no copy afterwards
        stack = weight_stack(c.N, x, n, start + n, c.h, settings.capture)
        hidden, records, cache = [x], [], []
        for layer, block in enumerate(self.layers):
            x, record, kv = block(
                x,
                rope,
                mask,
                layer,
                settings,
                past[layer] if past else None,
                None if stack is None else stack[layer],
            )
            hidden.append(x)
            records.append(record)
            cache.append(kv)
        x = self.norm(x)
        logits = x @ self.tokens.weight.T if self.output is None else self.output(x)
        weights = stack
        if settings.capture and stack is None:  # with autograd: the layers' own tensors
            weights = torch.stack([r.captured() for r in records])
        return CausalLMOutput(logits, records, hidden, weights, cache)

    @torch.inference_mode()
    def generate(
        self,
        ids: list[int],
        max_new_tokens: int,
        stop: frozenset[int] = frozenset(),
        settings: RunSettings = DEFAULT_SETTINGS,
    ) -> list[int]:
        """Greedy decoding with a key/value cache: each new token reads the cached keys and
        values of every earlier one, so a step costs one position's forward, not the prefix's.
        Stops after a token in `stop` (which is kept) or after `max_new_tokens`."""
        if not ids:
            raise ValueError("generation needs at least one token to continue")
        fast = RunSettings(
            scale=settings.scale,
            ablate=settings.ablate,
            use_positions=settings.use_positions,
            window=settings.window,
            capture=False,
        )
        device = self.tokens.weight.device
        out = self(torch.tensor([ids], device=device), fast)
        generated: list[int] = []
        while len(generated) < max_new_tokens:
            token = int(out.logits[0, -1].argmax())
            generated.append(token)
            if token in stop or len(generated) == max_new_tokens:
                break
            out = self(torch.tensor([[token]], device=device), fast, past=out.cache)
        return generated
