"""Tiny random models of every family the app reads from disk, written by `transformers` itself
(its configuration classes, `save_pretrained`) with a tokenizer trained here by `tokenizers`:
nothing is downloaded. Shared by the fidelity tests, the discovery tests and the app's tests."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may come from a model hub
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch
from tokenizers import (
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
    trainers,
)

TEXTS = [
    "The small dog sees the old man.",
    "Attention maps show which earlier words each position reads.",
    "Crème brûlée in Zürich: naïve façades — déjà vu, ça va?",
    "What is the capital of France?",
    "In 2024 there were 12,345 cats; the numbers split into digits.",
]
CORPUS = TEXTS * 3 + [
    "the quick brown fox jumps over a lazy dog while reading interesting papers",
    "a lecturer types a sentence in front of a class and the model translates it",
]
FAMILIES = ("bert", "roberta", "distilbert", "gpt2", "llama", "mistral", "qwen2")
ENCODERS = ("bert", "roberta", "distilbert")


def _wordpiece() -> Tokenizer:
    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    tokenizer.train_from_iterator(
        CORPUS, trainers.WordPieceTrainer(vocab_size=300, special_tokens=special)
    )
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    return tokenizer


def _byte_level(special: list[str], template: str | None) -> Tokenizer:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=special, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    if template:
        bos = special[0]
        tokenizer.post_processor = processors.TemplateProcessing(
            single=template, special_tokens=[(bos, tokenizer.token_to_id(bos))]
        )
    return tokenizer


CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def write_model(family: str, folder: Path, seed: int = 0, **overrides: object) -> Path:
    """A random `family` model and its tokenizer in `folder` (made), as transformers saves them."""
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    folder.mkdir(parents=True, exist_ok=True)
    small = dict(num_hidden_layers=2, num_attention_heads=4, hidden_size=32, intermediate_size=64)
    if family == "bert":
        tokenizer = _wordpiece()
        config = transformers.BertConfig(
            vocab_size=tokenizer.get_vocab_size(), max_position_embeddings=64, **small
        )
        cls = transformers.BertForMaskedLM  # its tensors carry the "bert." prefix and a head
        fast = dict(pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]")
    elif family == "roberta":
        tokenizer = _byte_level(["<s>", "<pad>", "</s>", "<unk>"], None)
        tokenizer.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
        config = transformers.RobertaConfig(
            vocab_size=tokenizer.get_vocab_size(), max_position_embeddings=66, pad_token_id=1,
            bos_token_id=0, eos_token_id=2, type_vocab_size=1, **small,
        )  # fmt: skip
        cls = transformers.RobertaModel
        fast = dict(bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>")
    elif family == "distilbert":
        tokenizer = _wordpiece()
        config = transformers.DistilBertConfig(
            vocab_size=tokenizer.get_vocab_size(), dim=32, n_layers=2, n_heads=4, hidden_dim=64,
            max_position_embeddings=64,
        )  # fmt: skip
        cls = transformers.DistilBertModel
        fast = dict(pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]")
    elif family == "gpt2":
        tokenizer = _byte_level(["<|endoftext|>"], None)
        config = transformers.GPT2Config(
            vocab_size=tokenizer.get_vocab_size(), n_embd=32, n_layer=2, n_head=4,
            n_positions=256, bos_token_id=0, eos_token_id=0,
        )  # fmt: skip
        cls = transformers.GPT2LMHeadModel
        fast = dict(bos_token="<|endoftext|>", eos_token="<|endoftext|>")
    else:
        special = ["<s>", "</s>", "<|im_start|>", "<|im_end|>"]
        tokenizer = _byte_level(special, "<s> $A" if family != "qwen2" else None)
        classes = {
            "llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM),
            "mistral": (transformers.MistralConfig, transformers.MistralForCausalLM),
            "qwen2": (transformers.Qwen2Config, transformers.Qwen2ForCausalLM),
        }
        config_class, cls = classes[family]
        config = config_class(
            vocab_size=tokenizer.get_vocab_size(), num_key_value_heads=2,
            max_position_embeddings=256, bos_token_id=0, eos_token_id=3,
            tie_word_embeddings=family == "qwen2", **small,
        )  # fmt: skip
        fast = dict(bos_token="<s>", eos_token="<|im_end|>")
    for key, value in overrides.items():
        setattr(config, key, value)
    torch.manual_seed(seed)
    model = cls(config).eval()
    with torch.no_grad():  # transformers' init leaves biases and norms at 0 and 1: vary them
        for name, p in model.named_parameters():
            if name.endswith("bias") or "norm" in name.lower():
                p.add_(torch.randn_like(p) * 0.1)
    model.save_pretrained(folder)
    wrapped = transformers.PreTrainedTokenizerFast(tokenizer_object=tokenizer, **fast)
    if family in ("llama", "mistral", "qwen2"):
        wrapped.chat_template = CHAT_TEMPLATE
    wrapped.save_pretrained(folder)
    return folder


def cache_layout(cache: Path, repo: str, folder: Path, revision: str = "0" * 40) -> Path:
    """`folder`'s files placed as huggingface_hub caches a download: each file a blob named by its
    sha256, linked from snapshots/<revision>/, refs/main naming the revision."""
    root = cache / f"models--{repo.replace('/', '--')}"
    snapshot = root / "snapshots" / revision
    (root / "blobs").mkdir(parents=True, exist_ok=True)
    snapshot.mkdir(parents=True, exist_ok=True)
    for path in sorted(folder.iterdir()):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        shutil.copyfile(path, root / "blobs" / digest)
        (snapshot / path.name).symlink_to(Path("../..") / "blobs" / digest)
    (root / "refs").mkdir(exist_ok=True)
    (root / "refs" / "main").write_text(revision)
    return snapshot
