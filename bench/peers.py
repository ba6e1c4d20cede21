"""Side by side with what people use instead: transformers, bertviz, torch.nn.Transformer.

1. `encoder`: MiniLM-L6, text -> every attention tensor. Our `trace.run` (tokenize, encode, copy
   to numpy) against transformers (its tokenizer, then BertModel with eager attention and
   output_attentions=True) on the same weights; and the bare forward passes on the same ids.
2. `visualisation`: text -> what the browser is sent. Our Trace plus the two default figures
   (one head's heatmap and the model overview) as JSON, against bertviz's head_view and
   model_view (html_action="return"), which take their attention from transformers.
3. `capture`: the paper's base model, forward pass with every attention tensor materialised (what
   our modules return), against the same model with the weights never materialised (a bench-only
   patch: fused scaled-dot-product attention, nothing captured) and against torch.nn.Transformer.
"""

from __future__ import annotations

import math
import os
from contextlib import contextmanager
from unittest import mock

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from model import transformer as paper  # noqa: E402
from model.transformer import (  # noqa: E402
    TransformerConfig,
    make_model,
    padding_mask,
    sinusoidal_table,
    subsequent_mask,
)
from runtime import registry  # noqa: E402
from runtime.pretrained import minilm_files  # noqa: E402
from runtime.trace import run  # noqa: E402
from viz.attention import heatmap, overview  # noqa: E402

from . import floor  # noqa: E402
from .timing import interleaved, paired_ratio, ratio  # noqa: E402

# Every word is one WordPiece token, so a text of exactly n tokens is n - 2 words ([CLS], [SEP]).
WORDS = (
    "the students watched the lecturer draw attention maps on the board and each of them asked "
    "which head looked at the previous word first ."
).split()


def text_of_length(tokenizer, n_tokens: int) -> str:
    """A text whose WordPiece tokenization has exactly n_tokens ids, [CLS] and [SEP] included."""
    text = " ".join(WORDS[i % len(WORDS)] for i in range(n_tokens - 2))
    length = len(tokenizer.encode(text, 10**6).ids)
    if length != n_tokens:
        raise AssertionError(f"built a text of {length} tokens instead of {n_tokens}")
    return text


def transformers_minilm():
    """transformers' tokenizer and BertModel (eager attention) from the same package files."""
    import transformers

    transformers.logging.set_verbosity_error()
    directory = str(minilm_files().directory)
    tokenizer = transformers.AutoTokenizer.from_pretrained(directory, local_files_only=True)
    bert = transformers.BertModel.from_pretrained(
        directory, attn_implementation="eager", local_files_only=True
    ).eval()
    return tokenizer, bert


def encoder(loaded, hf_tokenizer, bert, lengths, repeats: int, matmul_gflops: float) -> list[dict]:
    """Measurement 1 at each length: ours/theirs from text, and of the bare forward passes."""
    return [encoder_at(loaded, hf_tokenizer, bert, n, repeats, matmul_gflops) for n in lengths]


def encoder_at(loaded, hf_tokenizer, bert, n: int, repeats: int, matmul_gflops: float) -> dict:
    text = text_of_length(loaded.tokenizer, n)
    ids = torch.tensor([loaded.tokenizer.encode(text).ids])
    mask = padding_mask(ids, loaded.model.config.pad_id)

    def theirs_from_text():
        inputs = hf_tokenizer(text, return_tensors="pt", truncation=False)
        return bert(**inputs, output_attentions=True).attentions

    with torch.inference_mode():
        ours_out = loaded.model.encode(ids, mask)
        theirs_out = bert(input_ids=ids, output_attentions=True)
        max_diff = max(
            (a.weights - b).abs().max().item()
            for a, b in zip(ours_out.attention, theirs_out.attentions)
        )
        stats = interleaved(
            {
                "ours_trace_run": lambda: run(loaded, text),
                "transformers_from_text": theirs_from_text,
                "ours_encode": lambda: loaded.model.encode(ids, mask),
                "transformers_forward": lambda: bert(input_ids=ids, output_attentions=True),
            },
            repeats,
        )
    ours, theirs = stats["ours_trace_run"], stats["transformers_from_text"]
    return {
        "tokens": n,
        "stats": stats,
        "ratio_text": ratio(ours, theirs),
        "paired_ratio_text": paired_ratio(ours, theirs),
        "ratio_forward": ratio(stats["ours_encode"], stats["transformers_forward"]),
        "paired_ratio_forward": paired_ratio(stats["ours_encode"], stats["transformers_forward"]),
        "max_abs_diff": max_diff,
        "floor": floor.fraction_of_floor(
            floor.encoder_flops(loaded.model.config, n), stats["ours_encode"].median, matmul_gflops
        ),
    }


def ours_for_browser(loaded, text: str, with_overview: bool = True) -> list[str]:
    """The default figures: layer 1 head 1 as a heatmap (the Attention tab's first view) and the
    model overview (all layers × heads), as the JSON the browser receives."""
    trace = run(loaded, text)
    figures = [heatmap(trace, "encoder_self", 0, 0, loaded.label)]
    if with_overview:
        figures.append(overview(trace, "encoder_self", loaded.label))
    return [figure.to_json() for figure in figures]


def bertviz_for_browser(hf_tokenizer, bert, text: str) -> list[str]:
    """bertviz's documented use: attention from transformers, then head_view and model_view."""
    from bertviz import head_view, model_view

    inputs = hf_tokenizer(text, return_tensors="pt", truncation=False)
    with torch.inference_mode():
        attention = bert(**inputs, output_attentions=True).attentions
    tokens = hf_tokenizer.convert_ids_to_tokens(inputs["input_ids"][0])
    return [
        head_view(attention, tokens, html_action="return").data,
        model_view(attention, tokens, html_action="return").data,
    ]


def visualisation(loaded, hf_tokenizer, bert, lengths, repeats: int) -> list[dict]:
    """Measurement 2 at each length: time text -> browser payload, and the payload's bytes."""
    return [visualisation_at(loaded, hf_tokenizer, bert, n, repeats) for n in lengths]


def visualisation_at(loaded, hf_tokenizer, bert, n: int, repeats: int) -> dict:
    text = text_of_length(loaded.tokenizer, n)
    ours = [len(part.encode()) for part in ours_for_browser(loaded, text)]
    theirs = [len(part.encode()) for part in bertviz_for_browser(hf_tokenizer, bert, text)]
    stats = interleaved(
        {
            "ours": lambda: ours_for_browser(loaded, text),
            "bertviz": lambda: bertviz_for_browser(hf_tokenizer, bert, text),
            "ours_heatmap_only": lambda: ours_for_browser(loaded, text, with_overview=False),
        },
        repeats,
        warmup=0,  # the size measurement above was the warm-up
    )
    return {
        "tokens": n,
        "stats": stats,
        "ratio": ratio(stats["ours"], stats["bertviz"]),
        "paired_ratio": paired_ratio(stats["ours"], stats["bertviz"]),
        "ratio_heatmap_only": ratio(stats["ours_heatmap_only"], stats["bertviz"]),
        "bytes": {
            "ours_heatmap": ours[0],
            "ours_overview": ours[1],
            "ours": sum(ours),
            "bertviz_head_view": theirs[0],
            "bertviz_model_view": theirs[1],
            "bertviz": sum(theirs),
        },
    }


# --- 3. The cost of capturing every attention tensor ---------------------------------------------


def fused_attention(query, key, value, mask=None, scale=None, dropout=None, out=None):
    """Eq. (1) without materialising the weights: torch's fused kernel; no weights returned
    (the stack `out` the model set aside for them stays untouched, so never paged in)."""
    p = dropout.p if dropout is not None and dropout.training else 0.0
    out = F.scaled_dot_product_attention(
        query, key, value, attn_mask=mask, dropout_p=p, scale=scale
    )
    return out, None


@contextmanager
def capture_off():
    """Our model with `attention` swapped for the fused kernel: the records carry no weights.

    This exists only here: our modules always return the weights (the app needs every one), so
    the library has no capture-off path to call.
    """
    with mock.patch.object(paper, "attention", fused_attention):
        yield


class TorchTransformer(nn.Module):
    """torch.nn.Transformer of the same configuration, with the same embeddings and sinusoids."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.scale = math.sqrt(config.d_model)
        self.src_embed = nn.Embedding(config.src_vocab, config.d_model)
        self.tgt_embed = nn.Embedding(config.tgt_vocab, config.d_model)
        self.register_buffer("pe", sinusoidal_table(config.max_len, config.d_model))
        self.transformer = nn.Transformer(
            d_model=config.d_model,
            nhead=config.h,
            num_encoder_layers=config.N,
            num_decoder_layers=config.N,
            dim_feedforward=config.d_ff,
            dropout=config.dropout,
            batch_first=True,
        )

    def forward(self, src, tgt):
        x = self.src_embed(src) * self.scale + self.pe[: src.size(1)]
        y = self.tgt_embed(tgt) * self.scale + self.pe[: tgt.size(1)]
        causal = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
        return self.transformer(x, y, tgt_mask=causal, tgt_is_causal=True)


def paper_base_config() -> TransformerConfig:
    """Table 3's base model over the vocabulary of the app's paper model."""
    vocabulary = len(registry.translator_tokenizer())
    return TransformerConfig(src_vocab=vocabulary, tgt_vocab=vocabulary)


def capture(lengths, repeats: int, matmul_gflops: float) -> list[dict]:
    """Measurement 3: paper base model forward, capture on / capture off / nn.Transformer."""
    config = paper_base_config()
    ours = make_model(config, seed=0).eval()
    theirs = TorchTransformer(config).eval()
    return [capture_at(ours, theirs, n, repeats, matmul_gflops) for n in lengths]


def capture_at(ours, theirs, n: int, repeats: int, matmul_gflops: float) -> dict:
    config = ours.config
    generator = torch.Generator().manual_seed(n)
    src = torch.randint(4, config.src_vocab, (1, n), generator=generator)
    tgt = torch.randint(4, config.tgt_vocab, (1, n), generator=generator)
    src_mask, tgt_mask = padding_mask(src, config.pad_id), subsequent_mask(n)

    def captured():
        out = ours(src, tgt, src_mask, tgt_mask)
        return out.output, [r.weights for r in out.self_attention + out.cross_attention]

    def not_captured():
        with capture_off():
            return ours(src, tgt, src_mask, tgt_mask).output

    with torch.inference_mode():
        same = (captured()[0] - not_captured()).abs().max().item()
        stats = interleaved(
            {
                "capture_on": captured,
                "capture_off": not_captured,
                "torch_nn_transformer": lambda: theirs(src, tgt),
            },
            repeats,
        )
    on, off = stats["capture_on"], stats["capture_off"]
    return {
        "tokens": n,
        "stats": stats,
        "capture_overhead": ratio(on, off) - 1,
        "paired_capture_overhead": paired_ratio(on, off) - 1,
        "ratio_vs_torch": ratio(on, stats["torch_nn_transformer"]),
        "paired_ratio_vs_torch": paired_ratio(on, stats["torch_nn_transformer"]),
        "max_abs_diff_on_off": same,
        "floor": floor.fraction_of_floor(
            floor.encoder_decoder_flops(config, n, n), on.median, matmul_gflops
        ),
    }
