"""The verdict beside a translation (issue 65, item 1), on hand-written cases of each level.

The German in these tests is written by hand; where a case needs the model to be wrong in a
given way (an output that differs from the grammar's German, one that drops half the sentence),
the run's output is replaced, so that the case does not rest on which mistakes the shipped
weights happen to make.
"""

import dataclasses
import json
import math

from runtime.__main__ import main
from runtime.trace import run
from runtime.verdict import DIFFERS, GRAMMAR, OUTSIDE, reference_for, verdict


def _verdict(loaded, text, output=None):
    trace = run(loaded, text)
    if output is not None:
        trace = dataclasses.replace(trace, output=output)
    return trace, verdict(loaded, trace, text, reference_for(loaded, text))


def test_the_grammar_s_own_sentence_written_as_the_grammar_writes_it(translator):
    trace, said = _verdict(translator, "The small dog sees the old man.")
    assert trace.output == "Der kleine Hund sieht den alten Mann."
    assert said.level == GRAMMAR and not said.warns
    # typed as a class types it: no capital, no full stop, the same sentence to the grammar
    assert _verdict(translator, "the small dog sees the old man")[1].level == GRAMMAR


def test_an_output_other_than_the_grammar_s_german_is_shown_with_that_german(translator):
    _, said = _verdict(translator, "Does the train leave at nine?", "Verlässt der Zug um neun?")
    assert said.level == DIFFERS and said.warns
    assert said.reference == "Fährt der Zug um neun ab?"
    assert "Fährt der Zug um neun ab?" in said.reason


def test_a_sentence_the_grammar_never_writes_is_outside_and_says_why(translator):
    _, said = _verdict(translator, "Attention is all you need.")
    assert said.level == OUTSIDE and said.warns and said.reference is None
    assert "never writes a sentence built like this one" in said.reason


def test_words_it_never_saw_are_named(translator):
    _, said = _verdict(translator, "The dog sees 42 zeppelins.")
    assert said.level == OUTSIDE
    assert "“zeppelins”" in said.reason and "never saw this word" in said.reason


def test_an_output_much_shorter_than_the_input_is_called_so(translator):
    text = "The language model predicts the next word."  # 7 words
    _, said = _verdict(translator, text, "Die Sprache.")
    assert said.level == OUTSIDE
    assert "its output has 2 words for the input's 7" in said.reason
    # a full translation of the same sentence says nothing of length
    _, said = _verdict(translator, text, "Das Sprachmodell sagt das nächste Wort voraus.")
    assert "words for the input's" not in said.reason


def test_low_confidence_is_a_reason(translator):
    trace, said = _verdict(translator, "Attention is all you need.")
    # the geometric mean of the probabilities the model gave the tokens it wrote
    sentence = math.exp(sum(math.log(step.probability) for step in trace.steps) / len(trace.steps))
    assert sentence < 0.7
    assert f"its confidence is {sentence:.0%}, under 70%" in said.reason


def test_models_without_a_corpus_get_no_verdict(minilm, untrained):
    for loaded in (minilm, untrained):
        trace = run(loaded, "The cat sat on the mat.")
        assert verdict(loaded, trace, "The cat sat on the mat.", None) is None


def test_the_command_line_prints_and_writes_the_verdict(tmp_path, capsys):
    out = tmp_path / "trace.json"
    text = "The small dog sees the old man."
    assert main(["--model", "en-de", "--text", text, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "verdict: As the grammar writes it." in printed
    record = json.loads(out.read_text())
    assert record["verdict"]["level"] == "grammar" and record["verdict"]["reason"]
    assert (
        main(["--model", "en-de", "--text", "Attention is all you need.", "--json", str(out)]) == 0
    )
    assert json.loads(out.read_text())["verdict"]["level"] == "outside"
