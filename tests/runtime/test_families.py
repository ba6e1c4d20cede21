"""Models read from disk into our own blocks against Hugging Face `transformers` reading the same
folder with its own code: a tiny random model of every family, written by transformers' own
configuration classes (tests/tiny_models.py; nothing downloaded). Logits or hidden states and
every attention weight within 1e-4, token ids equal, 16 greedy tokens identical."""

import json

import pytest
import torch

from model.transformer import padding_mask
from runtime import families, local_load
from runtime.loaded import ModelUnavailable
from runtime.trace import run
from tests.tiny_models import ENCODERS, FAMILIES, TEXTS, write_model

transformers = pytest.importorskip("transformers")

ATOL = 1e-4
CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny")
    return {family: write_model(family, root / family, seed=i) for i, family in enumerate(FAMILIES)}


@pytest.fixture(scope="module")
def ours(folders):
    return {
        family: local_load.load_folder(folder, f"dir:{family}", family, str(folder), CPU)
        for family, folder in folders.items()
    }


def theirs(folder, family):
    auto = transformers.AutoModel if family in ENCODERS else transformers.AutoModelForCausalLM
    return auto.from_pretrained(str(folder), attn_implementation="eager").eval()


def their_tokenizer(folder):
    return transformers.PreTrainedTokenizerFast.from_pretrained(str(folder))


def close(mine, their, what):
    assert mine.shape == their.shape, what
    diff = (mine.float() - their.float()).abs().max().item()
    assert diff <= ATOL, f"{what}: max |ours - transformers| = {diff:.3g}"


@pytest.mark.parametrize("family", FAMILIES)
def test_token_ids_equal_transformers(folders, ours, family):
    tokenizer = their_tokenizer(folders[family])
    for text in TEXTS:
        expected = tokenizer(text)["input_ids"]
        if family in ENCODERS:
            got = ours[family].tokenizer.encode(text, 512).ids
        else:
            got = ours[family].tokenizer.encode(text, 512, special_tokens=True).ids
        assert list(got) == expected, text


@pytest.mark.parametrize("family", ENCODERS)
def test_encoder_attention_and_hidden_states_equal_transformers(folders, ours, family):
    reference = theirs(folders[family], family)
    loaded = ours[family]
    for text in TEXTS:
        ids = torch.tensor([loaded.tokenizer.encode(text, 512).ids])
        with torch.inference_mode():
            mine = loaded.model.encode(ids, padding_mask(ids, loaded.model.config.pad_id))
            their = reference(input_ids=ids, output_attentions=True, output_hidden_states=True)
        assert len(mine.attention) == len(their.attentions) == 2
        for layer, (record, weights) in enumerate(zip(mine.attention, their.attentions)):
            close(record.weights, weights, f"{family} attention, layer {layer}")
        for i, (a, b) in enumerate(zip(mine.hidden_states, their.hidden_states)):
            close(a, b, f"{family} hidden state {i}")


@pytest.mark.parametrize("family", [f for f in FAMILIES if f not in ENCODERS])
def test_decoder_logits_and_attention_equal_transformers(folders, ours, family):
    reference = theirs(folders[family], family)
    loaded = ours[family]
    for text in TEXTS:
        ids = torch.tensor([loaded.tokenizer.encode(text, 512, special_tokens=True).ids])
        with torch.inference_mode():
            mine = loaded.model(ids)
            their = reference(input_ids=ids, output_attentions=True)
        close(mine.logits, their.logits, f"{family} logits")
        for layer in range(2):
            close(mine.weights[layer], their.attentions[layer], f"{family} attention {layer}")


@pytest.mark.parametrize("family", [f for f in FAMILIES if f not in ENCODERS])
def test_sixteen_greedy_tokens_equal_transformers(folders, ours, family):
    reference = theirs(folders[family], family)
    loaded = ours[family]
    prompt = list(loaded.tokenizer.encode(TEXTS[0], 512, special_tokens=True).ids)
    mine = loaded.model.generate(prompt, 16)  # no stop token: all 16 compared
    with torch.inference_mode():  # eos_token_id None: nor does transformers stop early
        their = reference.generate(
            torch.tensor([prompt]), max_new_tokens=16, do_sample=False, eos_token_id=None
        )
    assert mine == their[0, len(prompt) :].tolist()


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_runs_through_the_apps_trace(ours, family):
    trace = run(ours[family], "The small dog sees the old man.")
    assert trace.attention  # every kind the model has
    for weights in trace.attention.values():
        assert weights.shape[0] == 2 and weights.shape[1] == 4  # layers × heads
        assert abs(float(weights[0, 0].sum(-1).mean()) - 1.0) < 1e-4  # rows are distributions


def test_a_question_is_asked_through_the_models_own_chat_template(ours):
    trace = run(ours["llama"], "What is the capital of France?")
    assert trace.source_tokens[0] == "<s>"  # the template's {{ bos_token }}
    assert "<|im_start|>" in trace.source_tokens and trace.system_length == 0


def test_a_base_model_without_a_template_continues_a_question(tmp_path):
    folder = write_model("llama", tmp_path / "base")
    (folder / "chat_template.jinja").unlink()
    loaded = local_load.load_folder(folder, "dir:base", "base", str(folder), CPU)
    trace = run(loaded, "What is the capital of France?")
    assert "<|im_start|>" not in trace.source_tokens[: trace.prompt_length]
    assert trace.source_tokens[0] == "<s>"  # the tokenizer's own post-processor


# --- Bad input ------------------------------------------------------------------------------------


def test_a_folder_of_pickle_weights_is_refused_with_the_reason(tmp_path, folders):
    folder = tmp_path / "pickled"
    folder.mkdir()
    for name in ("config.json", "tokenizer.json"):
        (folder / name).write_bytes((folders["bert"] / name).read_bytes())
    (folder / "pytorch_model.bin").write_bytes(b"\x80\x04not loaded")
    with pytest.raises(ModelUnavailable, match="pickle files only .*never loads"):
        families.inspect(folder)


def test_a_missing_config_is_refused(tmp_path, folders):
    folder = tmp_path / "noconfig"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes((folders["bert"] / "model.safetensors").read_bytes())
    with pytest.raises(ModelUnavailable, match="has no config.json"):
        families.inspect(folder)


def test_a_truncated_safetensors_file_is_refused(tmp_path, folders):
    folder = tmp_path / "truncated"
    folder.mkdir()
    for path in folders["llama"].iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-1000])
    with pytest.raises(ModelUnavailable, match="model.safetensors cannot be read"):
        families.inspect(folder)


def test_weights_of_another_shape_are_refused(tmp_path, folders):
    folder = tmp_path / "mismatch"
    folder.mkdir()
    for path in folders["bert"].iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    config = json.loads((folder / "config.json").read_text())
    config["num_hidden_layers"] = 3  # the file holds two layers
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelUnavailable, match="missing .*encoder.layer.2"):
        families.inspect(folder)


def test_an_unknown_architecture_names_what_is_supported(tmp_path, folders):
    folder = tmp_path / "t5"
    folder.mkdir()
    (folder / "config.json").write_text(
        json.dumps({"model_type": "t5", "architectures": ["T5Model"]})
    )
    with pytest.raises(ModelUnavailable, match="t5 is not an architecture this app runs .*BERT"):
        families.inspect(folder)


def test_a_tokenizer_that_does_not_load_is_refused(tmp_path, folders):
    folder = tmp_path / "badtok"
    folder.mkdir()
    for path in folders["bert"].iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    (folder / "tokenizer.json").write_text("{not json")
    with pytest.raises(ModelUnavailable, match="tokenizer.json does not load"):
        local_load.load_folder(folder, "dir:badtok", "badtok", str(folder), CPU)


def test_a_model_bigger_than_free_memory_is_refused_before_loading():
    with pytest.raises(ModelUnavailable, match=r"needs 7.5 GiB .* 2.0 GiB are free"):
        local_load.check_memory(1_000_000_000, free=2 << 30)


def test_byte_level_pieces_are_shown_as_their_text(ours):
    tokens = ours["roberta"].tokenizer.tokens(
        ours["roberta"].tokenizer.encode("The small dog.").ids
    )
    assert tokens[0] == "<s>" and tokens[-1] == "</s>"
    assert "".join(tokens[1:-1]) == "The small dog."  # " small", not "Ġsmall"
    wordpiece = ours["bert"].tokenizer
    assert any(t.startswith("##") for t in wordpiece.tokens(wordpiece.encode("unfamiliar").ids))


def test_gpt2s_learned_position_table_is_its_own(folders, ours):
    from safetensors.torch import load_file

    from runtime.probes import position_table

    stored = load_file(str(folders["gpt2"] / "model.safetensors"))["transformer.wpe.weight"]
    assert (position_table(ours["gpt2"], 10) == stored[:10].numpy()).all()
    assert ours["gpt2"].model.config.positions == "learned"
