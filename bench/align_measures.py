"""What issue 47's diagnosis measures on a translator, shared by its scripts
(bench/align_history.py, bench/align_diagnosis.py).

On held-out pairs, teacher-forced on the gold German (the pieces the gold word alignment names):
- the best cross-attention head's alignment error rate (AER: a German piece's most-attended
  English piece against the gold links, as `model.evaluate.head_tables` scores it), and the best
  head of each decoder layer;
- the mean normalised entropy of cross-attention rows per decoder layer (1: uniform over the
  source, 0: one source piece);
- the encoder's spread across positions after the input embedding and after every layer: the
  root-mean-square distance of a position's vector from the sentence's mean vector. A spread
  near 0 at the output means every source position hands cross-attention the same vector, so no
  head can align however its queries look;
- held-out NLL per target piece (teacher-forced, no label smoothing).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from corpus.grammar import Example
from model.gold import argmax_hits, attention_on_gold
from model.subword import SubwordTokenizer
from model.tokenization import BOS_ID, EOS_ID, PAD_ID
from model.transformer import EncoderDecoder, padding_mask, subsequent_mask


@torch.inference_mode()
def measure(
    model: EncoderDecoder, tokenizer: SubwordTokenizer, examples: list[Example]
) -> dict[str, object]:
    model.eval()
    n_layers, h = model.config.N, model.config.h
    hits = torch.zeros(n_layers, h)
    predicted = gold_links = 0
    entropy = torch.zeros(n_layers)
    rows = 0
    spread = torch.zeros(n_layers + 1)
    nll = 0.0
    tokens = 0
    for ex in examples:
        _, cross, alignment, _ = attention_on_gold(model, tokenizer, ex)
        sentence_hits, linked, links = argmax_hits(cross, alignment)
        hits += sentence_hits
        predicted += linked
        gold_links += links
        src_len = cross.size(-1)
        if src_len > 1:
            p = cross.clamp_min(1e-12)
            row_entropy = -(p * p.log()).sum(-1) / math.log(src_len)  # [layer, head, row]
            entropy += row_entropy.mean(dim=(1, 2)) * row_entropy.size(-1)
            rows += row_entropy.size(-1)
        src_ids, _ = tokenizer.encode_words(ex.english)
        tgt_ids, _ = tokenizer.encode_words(ex.german)
        src = torch.tensor([src_ids])
        tgt = torch.tensor([[BOS_ID, *tgt_ids, EOS_ID]])
        src_mask = padding_mask(src, PAD_ID)
        encoded = model.encode(src, src_mask)
        # the layers' outputs, the last as cross-attention reads it (a pre-norm stack's final norm)
        for i, hidden in enumerate([*encoded.hidden_states[:-1], encoded.memory]):
            x = hidden[0]
            spread[i] += (x - x.mean(0)).pow(2).sum(-1).mean().sqrt()
        decoder_input, target = tgt[:, :-1], tgt[:, 1:]
        out = model.decode(
            encoded.memory, src_mask, decoder_input, subsequent_mask(decoder_input.size(1))
        )
        assert model.generator is not None
        logits = model.generator.proj(out.output)
        nll += float(F.cross_entropy(logits[0], target[0], reduction="sum"))
        tokens += target.size(1)
    aer = 1 - 2 * hits / max(1, predicted + gold_links)
    flat = int(aer.flatten().argmin())
    return {
        "sentences": len(examples),
        "best_aer": round(float(aer.min()), 4),
        "best_head": [flat // h + 1, flat % h + 1],
        "best_aer_per_layer": [round(float(v), 4) for v in aer.min(dim=1).values],
        "cross_entropy_per_layer": [round(float(v), 4) for v in entropy / max(1, rows)],
        "encoder_spread": [round(float(v), 3) for v in spread / len(examples)],
        "nll": round(nll / max(1, tokens), 4),
    }
