"""The Trace: shapes that match the tokens, decoder attention equal to what decoding saw, no state
left on the shared model, and the command line's JSON."""

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import torch

from model.decoding import beam_search, greedy_decode
from model.tokenization import BOS_ID, EOS_ID
from model.transformer import RunSettings, padding_mask, subsequent_mask
from runtime.registry import load
from runtime.trace import InputError, run

TEXT = "the small dog sees the old man ."


def test_encoder_decoder_trace_shapes_follow_the_tokens(untrained):
    trace = run(untrained, TEXT)
    n_src, n_tgt = len(trace.source_tokens), len(trace.target_tokens)
    assert trace.source_tokens == tuple(TEXT.split())
    assert trace.target_tokens[0] == "<s>" and len(trace.steps) == n_tgt
    assert trace.attention["encoder_self"].shape == (6, 8, n_src, n_src)
    assert trace.attention["decoder_self"].shape == (6, 8, n_tgt, n_tgt)
    assert trace.attention["cross"].shape == (6, 8, n_tgt, n_src)
    assert trace.queries["cross"].shape == (6, 8, n_tgt, 64)
    assert trace.keys["cross"].shape == (6, 8, n_src, 64)
    assert trace.encoder_hidden_states.shape == (7, n_src, 512)
    assert trace.scale == pytest.approx(1 / 8)
    with pytest.raises(ValueError):
        trace.attention["cross"][0, 0, 0, 0] = 1.0  # read-only


def test_decoder_attention_equals_what_each_decoding_step_saw(untrained):
    """Row t of the teacher-forced pass equals the last row when decoding the prefix of length t+1."""
    trace = run(untrained, TEXT)
    model = untrained.model
    src = torch.tensor([untrained.tokenizer.encode(TEXT, 48).ids])
    mask = padding_mask(src, 0)
    with torch.inference_mode():
        memory = model.encode(src, mask).memory
        piece_ids = {piece: i for i, piece in enumerate(untrained.tokenizer.itos)}
        prefix_ids = [piece_ids[t] for t in trace.target_tokens]
        for t in (0, len(prefix_ids) // 2, len(prefix_ids) - 1):
            prefix = torch.tensor([prefix_ids[: t + 1]])
            out = model.decode(memory, mask, prefix, subsequent_mask(t + 1))
            for layer in range(6):
                np.testing.assert_allclose(
                    trace.attention["cross"][layer, :, t],
                    out.cross_attention[layer].weights[0, :, -1].numpy(),
                    atol=1e-5,
                )
            chosen = model.generator(out.output[:, -1]).argmax().item()
            assert untrained.tokenizer.itos[chosen] == trace.steps[t].token


@pytest.mark.parametrize("use_positions", [True, False])
def test_an_encoder_only_run_is_the_whole_runs_encoder_without_a_translation(
    untrained, use_positions
):
    """The positional tab's shuffled runs need the encoder alone: the same encoder attention
    and hidden states as a whole run, and no decoder kinds, steps or output."""
    settings = RunSettings(use_positions=use_positions)
    whole = run(untrained, "the old man sees the small dog .", settings)
    encoder = run(untrained, "the old man sees the small dog .", settings, encoder_only=True)
    assert encoder.kinds == ("encoder_self",) and whole.kinds != encoder.kinds
    np.testing.assert_array_equal(
        encoder.attention["encoder_self"], whole.attention["encoder_self"]
    )
    np.testing.assert_array_equal(encoder.encoder_hidden_states, whole.encoder_hidden_states)
    assert (encoder.output, encoder.steps, encoder.output_ids) == ("", (), ())
    assert "decode" in whole.timings_ms and "decode" not in encoder.timings_ms


def test_greedy_returns_cross_attention_for_every_generated_token(untrained):
    trace = run(untrained, "the dog .", RunSettings(), decoding="greedy")
    assert trace.attention["cross"].shape[2] == len(trace.steps)
    for step in trace.steps:
        assert step.alternatives[0][1] == pytest.approx(step.probability)  # greedy: the argmax
        assert 0 < step.probability <= 1


def test_beam_of_one_is_greedy_and_beam_four_scores_at_least_as_well(untrained):
    model = untrained.model
    src = torch.tensor([untrained.tokenizer.encode("The dog sees a cat.", 48).ids])
    mask = padding_mask(src, 0)
    settings = RunSettings()
    with torch.inference_mode():
        memory = model.encode(src, mask).memory
        greedy = greedy_decode(model, memory, mask, settings, 8, BOS_ID, EOS_ID)
        beam1 = beam_search(model, memory, mask, settings, 8, BOS_ID, EOS_ID, beam_size=1)
        assert beam1 == greedy


def test_settings_are_per_call_in_any_order_and_from_threads(untrained):
    before = {k: v.clone() for k, v in untrained.model.state_dict().items()}
    settings = [
        RunSettings(),
        RunSettings(scale=1.0),
        RunSettings(ablate={("encoder_self", 0, 3)}),
        RunSettings(use_positions=False),
    ]
    alone = [run(untrained, TEXT, s).attention["encoder_self"] for s in settings]
    assert not np.array_equal(alone[0], alone[1]) and not np.array_equal(alone[0], alone[2])
    reversed_order = [run(untrained, TEXT, s) for s in reversed(settings)][::-1]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda s: run(untrained, TEXT, s), settings * 3))
    for i, trace in enumerate(reversed_order + threaded):
        np.testing.assert_array_equal(trace.attention["encoder_self"], alone[i % 4])
    for key, value in untrained.model.state_dict().items():
        assert torch.equal(value, before[key]), key


@pytest.mark.parametrize("text", ["", "   \n\t ", "\x00"])
def test_empty_text_is_refused_with_a_message(untrained, text):
    with pytest.raises(InputError, match="Type a sentence"):
        run(untrained, text)


def cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "runtime", *args], capture_output=True, text=True, timeout=300
    )


def test_cli_lists_the_models():
    result = cli("--list")
    assert result.returncode == 0
    assert {"paper-untrained", "minilm-l6", "en-de"} <= set(result.stdout.split("\n"))


@pytest.mark.parametrize("model", ["paper-untrained", "minilm-l6"])
def test_cli_json_parses_and_has_the_models_shapes(tmp_path, model):
    out = tmp_path / "trace.json"
    result = cli("--model", model, "--text", "the dog sees a cat", "--json", str(out))
    assert result.returncode == 0, result.stderr
    data = json.loads(out.read_text())
    assert data["model"] == model and data["device"] == "cpu"
    loaded = load(model, torch.device("cpu"))
    c = loaded.model.config
    n_src = len(data["source_tokens"])
    assert np.array(data["attention"]["encoder_self"]).shape == (c.N, c.h, n_src, n_src)
    assert data["scale"] == pytest.approx(c.d_k**-0.5)
    if c.is_encoder_decoder:
        n_tgt = len(data["target_tokens"])
        assert np.array(data["attention"]["cross"]).shape == (c.N, c.h, n_tgt, n_src)
        assert np.array(data["attention"]["decoder_self"]).shape == (c.N, c.h, n_tgt, n_tgt)
        assert data["output"]
    else:
        assert data["target_tokens"] == [] and set(data["attention"]) == {"encoder_self"}


@pytest.mark.parametrize(
    "args",
    [
        ("--model", "paper-untrained", "--text", "   "),
        ("--model", "no-such-model", "--text", "the dog"),
        ("--model", "paper-untrained", "--text", "the dog", "--scale", "-2"),
        (
            "--model",
            "paper-untrained",
        ),
    ],
)
def test_cli_bad_input_gives_one_line_and_nonzero_exit(args):
    result = cli(*args)
    assert result.returncode != 0
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_a_word_is_unknown_exactly_when_a_character_of_it_is_not_in_the_vocabulary(untrained):
    """A BPE vocabulary has every character it saw as a piece, alone or after "##": a word is
    read as <unk> only where one of its characters is in neither form."""
    pieces = set(untrained.tokenizer.itos)

    def known(ch: str) -> bool:
        return ch in pieces or "##" + ch in pieces

    text = "Señor Muñoz sees the café and the ☃ at 7."
    expected = tuple(w for w in text.rstrip(".").split() if not all(known(c) for c in w))
    assert expected == ("Señor", "Muñoz", "☃")  # (n-tilde and the snowman were never seen)
    trace = run(untrained, text)
    assert trace.unknown_words == expected
    assert trace.source_tokens.count("<unk>") == 3
    assert all(word in trace.vocabulary_notice for word in expected)


def test_the_run_names_exactly_the_words_it_reads_as_unk(untrained, minilm):
    """What the page marks beside the output: exactly the words the run reads as <unk>."""
    assert run(untrained, "The ☃ sees the man.").unknown_words == ("☃",)
    assert run(untrained, "The small dog sees the old man.").unknown_words == ()
    assert run(minilm, "The cat sat on the mat. \ud800 unbelievably").unknown_words == ()


@pytest.mark.parametrize(
    ("typed", "german"),
    [  # the German written by hand, apart from the grammar
        ("the cat sat on the mat.", "Die Katze saß auf der Matte."),
        ("  my sister reads a book", "Meine Schwester liest ein Buch."),
    ],
)
def test_a_small_first_letter_is_read_as_a_capital_by_the_translator(typed, german):
    """Every sentence the translator learned from begins with a capital; a lecturer's typed
    "the cat …" was read as written and came out as nonsense ("Charlotte saß auf der Matte.")."""
    translator = load("en-de", torch.device("cpu"))
    trace = run(translator, typed)
    assert trace.output == german
    assert trace.source_tokens[0][0].isupper()
    first = typed.split()[0]
    assert any(f"“{first}” is read as “{first.capitalize()}”" in n for n in trace.notices)
    assert not [n for n in run(translator, typed.strip().capitalize()).notices if "capital" in n]


@pytest.mark.parametrize(
    ("typed", "mark", "german"),
    [  # the German written by hand; unended, the v2.1 translator ran on ("Guten Morgen Morgen …")
        ("I like coffee", ".", "Ich mag Kaffee."),
        ("Good morning  ", ".", "Guten Morgen."),
        ("do you like coffee", "?", "Magst du Kaffee?"),
        ("Where is the station", "?", "Wo ist der Bahnhof?"),
    ],
)
def test_a_sentence_without_its_end_is_read_with_one_by_the_translator(typed, mark, german):
    translator = load("en-de", torch.device("cpu"))
    trace = run(translator, typed)
    assert trace.output == german
    assert trace.source_tokens[-1] == mark
    assert any(f"read with “{mark}” at its end" in n for n in trace.notices)
    ended = run(translator, typed.strip() + mark)
    assert ended.source_tokens == trace.source_tokens
    assert not [n for n in ended.notices if "at its end" in n]


def test_only_the_translator_is_given_an_end(untrained):
    trace = run(untrained, "the small dog sees the old man")
    assert trace.source_tokens[-1] == "man" and trace.notices == ()


def test_a_text_is_read_as_typed_where_the_model_learned_any_case(untrained):
    trace = run(untrained, TEXT)
    assert trace.source_tokens[0] == "the" and trace.notices == ()
