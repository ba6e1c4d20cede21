"""Greedy and beam-search decoding (Section 6.1: beam 4, length penalty alpha = 0.6).

The encoder runs once per sentence; each step re-runs the decoder over the prefix, which at the
lengths this app handles is cheaper than keeping a cache per layer.
"""

from __future__ import annotations

import torch
from torch import Tensor

from .transformer import EncoderDecoder, RunSettings, subsequent_mask


def next_token_log_probs(
    model: EncoderDecoder,
    memory: Tensor,
    src_mask: Tensor | None,
    prefix: Tensor,
    settings: RunSettings,
) -> Tensor:
    """Log-probabilities of the next token for every prefix in the batch, [B, vocab]."""
    if model.generator is None:
        raise ValueError("an encoder-only model has no decoder")
    tgt_mask = subsequent_mask(prefix.size(1), prefix.device)
    decoded = model.decode(memory, src_mask, prefix, tgt_mask, settings)
    log_probs: Tensor = model.generator(decoded.output[:, -1])
    return log_probs


def greedy_decode(
    model: EncoderDecoder,
    memory: Tensor,
    src_mask: Tensor | None,
    settings: RunSettings,
    max_len: int,
    bos: int,
    eos: int,
) -> list[int]:
    """The most probable token at every step, until the end symbol (included) or max_len tokens."""
    prefix = torch.tensor([[bos]], device=memory.device)
    for _ in range(max_len):
        log_probs = next_token_log_probs(model, memory, src_mask, prefix, settings)
        token = log_probs.argmax(dim=-1, keepdim=True)
        prefix = torch.cat([prefix, token], dim=1)
        if token.item() == eos:
            break
    return prefix[0, 1:].tolist()


def length_penalty(length: int, alpha: float) -> float:
    """Wu et al. (2016), the penalty the paper's beam search uses: ((5 + |Y|) / 6) ** alpha."""
    return float(((5 + length) / 6) ** alpha)  # float ** float is typed Any (it may be complex)


def beam_search(
    model: EncoderDecoder,
    memory: Tensor,
    src_mask: Tensor | None,
    settings: RunSettings,
    max_len: int,
    bos: int,
    eos: int,
    beam_size: int = 4,
    alpha: float = 0.6,
) -> list[int]:
    """Keep the beam_size best prefixes; return the finished one with the best penalised score."""
    alive: list[tuple[list[int], float]] = [([bos], 0.0)]
    finished: list[tuple[list[int], float]] = []
    for _ in range(max_len):
        prefix = torch.tensor([seq for seq, _ in alive], device=memory.device)
        batch = len(alive)
        log_probs = next_token_log_probs(
            model,
            memory.expand(batch, -1, -1),
            None if src_mask is None else src_mask.expand(batch, -1, -1),
            prefix,
            settings,
        )
        scores = torch.tensor([score for _, score in alive], device=memory.device)
        totals = (scores.unsqueeze(1) + log_probs).flatten()
        best = totals.topk(min(2 * beam_size, totals.numel()))
        vocab = log_probs.size(1)
        next_alive = []
        for total, index in zip(best.values.tolist(), best.indices.tolist()):
            seq = alive[index // vocab][0] + [index % vocab]
            if seq[-1] == eos:
                finished.append((seq, total))
            else:
                next_alive.append((seq, total))
            if len(next_alive) == beam_size:
                break
        alive = next_alive
        if len(finished) >= beam_size or not alive:
            break
    candidates = finished or alive
    best_seq, _ = max(candidates, key=lambda c: c[1] / length_penalty(len(c[0]) - 1, alpha))
    return best_seq[1:]
