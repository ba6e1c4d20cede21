"""A GGUF file found on the machine (runtime/gguf_file.py, runtime/local_load.py) against
`transformers` reading the same file with its own GGUF code: tiny random Llama and Qwen2 models
written with `gguf`'s own writer (tests/tiny_models.py; the Llama's q and k rows permuted as
llama.cpp's converter writes them). Token ids equal, logits and every attention weight within
1e-4, 16 greedy tokens identical; files that cannot run say why."""

import pytest
import torch

from runtime import local, local_load, registry
from runtime.loaded import ModelUnavailable
from runtime.trace import run
from tests.tiny_models import TEXTS, write_gguf

transformers = pytest.importorskip("transformers")
pytest.importorskip("gguf")

CPU = torch.device("cpu")
ATOL = 1e-4
FAMILIES = ("llama", "qwen2")  # llama-bpe's and qwen2's splits: digits in threes, or alone


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("gguf")
    return {
        f: write_gguf(f, root / "models" / f"tiny-{f}.gguf", seed=i) for i, f in enumerate(FAMILIES)
    }


@pytest.fixture(scope="module")
def ours(files):
    return {
        f: local_load.load_gguf(p, f"gguf:{p.name}", p.name, str(p), CPU) for f, p in files.items()
    }


def theirs(path):
    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    folder, name = str(path.parent), path.name
    model = transformers.AutoModelForCausalLM.from_pretrained(
        folder, gguf_file=name, attn_implementation="eager", dtype=torch.float32
    )
    return transformers.AutoTokenizer.from_pretrained(folder, gguf_file=name), model.eval()


@pytest.mark.parametrize("family", FAMILIES)
def test_token_ids_logits_attention_and_generation_equal_transformers(files, ours, family):
    tokenizer, reference = theirs(files[family])
    loaded = ours[family]
    for text in TEXTS:
        ids = list(loaded.tokenizer.encode(text, 512).ids)
        assert ids == tokenizer(text, add_special_tokens=False)["input_ids"], text
        with torch.inference_mode():
            mine = loaded.model(torch.tensor([ids]))
            their = reference(torch.tensor([ids]), output_attentions=True)
        assert (mine.logits - their.logits).abs().max() <= ATOL
        for layer in range(2):
            assert (mine.weights[layer] - their.attentions[layer]).abs().max() <= ATOL
    prompt = list(loaded.tokenizer.encode(TEXTS[0], 512).ids)
    with torch.inference_mode():
        expected = reference.generate(
            torch.tensor([prompt]), max_new_tokens=16, do_sample=False, eos_token_id=None
        )
    assert loaded.model.generate(prompt, 16) == expected[0, len(prompt) :].tolist()


def test_the_splits_differ_where_the_families_do(ours):
    """Llama 3 reads digits in threes, Qwen2 one by one: each split is its own."""
    llama = ours["llama"].tokenizer.tokens(ours["llama"].tokenizer.encode("12345").ids)
    qwen = ours["qwen2"].tokenizer.tokens(ours["qwen2"].tokenizer.encode("12345").ids)
    assert qwen == ["1", "2", "3", "4", "5"] and len(llama) < 5


def test_a_question_goes_through_the_files_own_chat_template(ours):
    trace = run(ours["llama"], "What is the capital of France?")
    assert trace.source_tokens[:2] == ("<s>", "<|im_start|>")


def test_gguf_files_are_found_in_a_folder_and_in_the_cache(files, tmp_path, monkeypatch):
    from tests.tiny_models import cache_layout

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "tiny-qwen2.gguf").write_bytes(files["qwen2"].read_bytes())
    cache_layout(tmp_path / "hub", "org/tiny-gguf", repo)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv(local.MODEL_DIRS_ENV, str(files["llama"].parent))
    found = {f.name: f for f in local.found()}
    assert found["gguf:tiny-llama.gguf"].architecture == "GGUF llama"
    assert found["hf:org/tiny-gguf/tiny-qwen2.gguf"].runnable
    assert (found["gguf:tiny-qwen2.gguf"].layers, found["gguf:tiny-qwen2.gguf"].heads) == (2, 4)
    loaded = registry.load("hf:org/tiny-gguf/tiny-qwen2.gguf", CPU)
    assert loaded.label == "org/tiny-gguf/tiny-qwen2.gguf (Qwen2, 2 layers × 4 heads)"


def _bare_gguf(path, architecture, tokenizer_model="gpt2"):
    import gguf
    import numpy as np

    writer = gguf.GGUFWriter(str(path), architecture)
    writer.add_tokenizer_model(tokenizer_model)
    writer.add_tensor("token_embd.weight", np.zeros((4, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_a_gguf_of_another_architecture_says_which_it_reads(tmp_path):
    path = _bare_gguf(tmp_path / "phi.gguf", "phi3")
    found = local.describe("gguf:phi.gguf", "phi.gguf", path, str(tmp_path))
    assert found.architecture == "GGUF phi3"
    assert "architecture 'phi3'; this app reads llama, qwen2" in found.reason


def test_a_sentencepiece_gguf_is_refused_with_the_reason(files, tmp_path):
    import gguf

    reader = gguf.GGUFReader(files["llama"])
    path = tmp_path / "spm.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    for field in reader.fields.values():  # the same file, its tokenizer said to be SentencePiece
        if field.name.startswith("GGUF.") or field.name == "general.architecture":
            continue
        value = "llama" if field.name == "tokenizer.ggml.model" else field.contents()
        writer.add_key_value(
            field.name, value, field.types[0], field.types[-1] if len(field.types) > 1 else None
        )
    for tensor in reader.tensors:
        writer.add_tensor(tensor.name, tensor.data)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(ModelUnavailable, match="SentencePiece.*only byte-level BPE"):
        local_load.load_gguf(path, "x", "x", "x", CPU)


def test_a_damaged_gguf_is_refused(tmp_path):
    path = tmp_path / "broken.gguf"
    path.write_bytes(b"GGUF" + b"\x00" * 10)
    found = local.describe("gguf:broken.gguf", "broken.gguf", path, str(tmp_path))
    assert "cannot be read as GGUF" in found.reason


def test_dequantizing_tells_its_progress(files):
    heard = []
    local_load.load_gguf(
        files["qwen2"], "g", "g", "g", CPU, lambda f, what: heard.append((f, what))
    )
    # the embedding and the final norm, and 2 layers of 12 (two norms, W_q, W_k, W_v and their
    # biases, W_o, three feed-forward matrices); Qwen2's output is the embedding
    assert heard[-1] == (1.0, "dequantizing tensor 26 of 26")
