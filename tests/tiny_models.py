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


def permute_rope_rows(weight, n_heads: int):
    """The row order llama.cpp's converter (convert_hf_to_gguf.py, LlamaModel.permute) writes a
    Llama's W_q and W_k in: each head's two halves interleaved."""
    rows = weight.shape[0]
    return (
        weight.reshape(n_heads, 2, rows // n_heads // 2, *weight.shape[1:])
        .swapaxes(1, 2)
        .reshape(weight.shape)
    )


def write_gguf(family: str, path: Path, seed: int = 0) -> Path:
    """A tiny random `family` ("llama" or "qwen2") model as a float32 GGUF file, written with
    `gguf`'s own writer from the model transformers wrote (as llama.cpp's converter would)."""
    import json

    import gguf
    from safetensors.torch import load_file

    folder = write_model(family, path.parent / f".{path.stem}-hf", seed=seed)  # hidden: not listed
    config = json.loads((folder / "config.json").read_text())
    tokenizer = json.loads((folder / "tokenizer.json").read_text())
    tensors = load_file(str(folder / "model.safetensors"))
    writer = gguf.GGUFWriter(str(path), family)
    writer.add_name(f"tiny-{family}")
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_block_count(config["num_hidden_layers"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_head_count(config["num_attention_heads"])
    writer.add_head_count_kv(config["num_key_value_heads"])
    writer.add_rope_dimension_count(config["hidden_size"] // config["num_attention_heads"])
    writer.add_rope_freq_base(float(config.get("rope_theta", 10000.0)))
    writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
    writer.add_vocab_size(config["vocab_size"])
    vocab = tokenizer["model"]["vocab"]
    tokens = sorted(vocab, key=vocab.get)
    special = {t["content"] for t in tokenizer["added_tokens"] if t["special"]}
    merges = [m if isinstance(m, str) else " ".join(m) for m in tokenizer["model"]["merges"]]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("llama-bpe" if family == "llama" else "qwen2")
    writer.add_token_list(tokens)
    writer.add_token_types([3 if t in special else 1 for t in tokens])
    writer.add_token_merges(merges)
    writer.add_bos_token_id(vocab["<s>"])
    writer.add_eos_token_id(vocab["<|im_end|>"])
    writer.add_chat_template(CHAT_TEMPLATE)
    names = {
        "input_layernorm.weight": "attn_norm.weight",
        "self_attn.q_proj.weight": "attn_q.weight",
        "self_attn.k_proj.weight": "attn_k.weight",
        "self_attn.v_proj.weight": "attn_v.weight",
        "self_attn.q_proj.bias": "attn_q.bias",
        "self_attn.k_proj.bias": "attn_k.bias",
        "self_attn.v_proj.bias": "attn_v.bias",
        "self_attn.o_proj.weight": "attn_output.weight",
        "post_attention_layernorm.weight": "ffn_norm.weight",
        "mlp.gate_proj.weight": "ffn_gate.weight",
        "mlp.up_proj.weight": "ffn_up.weight",
        "mlp.down_proj.weight": "ffn_down.weight",
    }
    for name, tensor in tensors.items():
        array = tensor.float().numpy()
        if name == "model.embed_tokens.weight":
            gguf_name = "token_embd.weight"
        elif name == "model.norm.weight":
            gguf_name = "output_norm.weight"
        elif name == "lm_head.weight":
            if config.get("tie_word_embeddings"):
                continue
            gguf_name = "output.weight"
        else:
            layer, rest = name.removeprefix("model.layers.").split(".", 1)
            gguf_name = f"blk.{layer}.{names[rest]}"
            if family == "llama" and rest == "self_attn.q_proj.weight":
                array = permute_rope_rows(array, config["num_attention_heads"])
            elif family == "llama" and rest == "self_attn.k_proj.weight":
                array = permute_rope_rows(array, config["num_key_value_heads"])
        writer.add_tensor(gguf_name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def write_marian(folder: Path, seed: int = 0) -> Path:
    """A tiny random Marian (opus-mt's design: swish, embeddings times sqrt(d_model), shared)
    with SentencePiece models trained here and its vocab.json, as transformers saves one."""
    import io
    import json

    import sentencepiece as spm
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    folder.mkdir(parents=True, exist_ok=True)
    models_ = {}
    for side, text in (("source", CORPUS), ("target", [t.lower() for t in CORPUS])):
        written = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(text), model_writer=written, vocab_size=90,
            model_type="unigram", minloglevel=2,
        )  # fmt: skip
        (folder / f"{side}.spm").write_bytes(written.getvalue())
        models_[side] = spm.SentencePieceProcessor(model_proto=written.getvalue())
    pieces = ["</s>", "<unk>"]
    for processor in models_.values():
        for i in range(processor.get_piece_size()):
            piece = processor.id_to_piece(i)
            if piece not in pieces and piece not in ("<s>", "<unk>", "</s>"):
                pieces.append(piece)
    pieces.append("<pad>")
    vocab = {piece: i for i, piece in enumerate(pieces)}
    (folder / "vocab.json").write_text(json.dumps(vocab))
    config = transformers.MarianConfig(
        vocab_size=len(vocab), d_model=32, encoder_layers=2, decoder_layers=2,
        encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
        decoder_ffn_dim=64, max_position_embeddings=128, activation_function="swish",
        scale_embedding=True, pad_token_id=vocab["<pad>"], eos_token_id=0,
        decoder_start_token_id=vocab["<pad>"], forced_eos_token_id=0,
    )  # fmt: skip
    torch.manual_seed(seed)
    model = transformers.MarianMTModel(config).eval()
    with torch.no_grad():  # biases, norms and the logits' bias away from 0 and 1: tested too
        for name, p in model.named_parameters():
            if name.endswith("bias") or "norm" in name:
                p.add_(torch.randn_like(p) * 0.1)
        model.final_logits_bias.add_(torch.randn_like(model.final_logits_bias))
    model.save_pretrained(folder)
    return folder
