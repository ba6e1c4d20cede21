"""What stands by the model's output: its confidence, and the verdict (runtime/verdict.py): a
green badge on the output's line, or an amber warning box under it."""

import html
import json

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from runtime import registry
from runtime.confidence import confidence
from runtime.trace import run


def plain(markdown: str) -> str:
    """A warning's text as the page shows it (the typed words in it are Markdown-escaped)."""
    return markdown.replace("\\", "")


def badges(page: AppTest) -> list[str]:
    """The verdict's badge on the output's line (st.badge is a Markdown directive)."""
    return [m.value for m in page.main.markdown if "-badge[" in m.value]


def confidence_labels(page: AppTest) -> list[str]:
    """The confidence on the output's line: a button that opens the bars of each token."""
    labels = [p.proto.popover.label for p in page.main.get("popover")]
    return [label for label in labels if label.startswith("confidence ")]


def confidence_charts(page: AppTest) -> list:
    return [chart for chart in page.get("plotly_chart") if chart.key == "output_confidence"]


def page_for(text: str) -> AppTest:
    page = AppTest.from_file("../../app.py", default_timeout=600)
    page.query_params["model"] = "en-de"
    page.query_params["text"] = text
    page.query_params["tab"] = "Model"  # a light tab: the test is about the output
    page.query_params["present"] = "1"  # the sidebar folded away: all of it by the output
    page.run()
    assert not page.exception
    return page


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Attention is all you need.", "never writes a sentence built like this one"),
        ("The quixotic dog sees a zeppelin.", "never saw these words in training: “quixotic”"),
        ("The old man sees the zeppelin.", "never saw this word in training: “zeppelin”"),
    ],
)
def test_a_sentence_outside_what_it_learned_gets_a_warning_that_says_why(text, why):
    """ "The old man sees the zeppelin." is translated at 81%, above the confidence line, and
    is still a guess for "zeppelin": the warning does not wait for a low confidence."""
    page = page_for(text)
    assert len(confidence_labels(page)) == 1
    warnings = [plain(w.value) for w in page.main.warning if "Outside what it learned" in w.value]
    assert len(warnings) == 1 and why in warnings[0], warnings
    assert not badges(page) and not page.main.error


def test_an_output_other_than_the_grammar_s_german_is_a_warning_showing_that_german():
    """The shipped translator writes "Verlässt der Zug um neun?" (91% sure) where the grammar
    it learned from writes "Fährt der Zug um neun ab?" (German written by hand). A warning, not
    an error box: the page's errors are for what failed."""
    page = page_for("Does the train leave at nine?")
    warnings = [plain(w.value) for w in page.main.warning if "Differs" in w.value]
    assert len(warnings) == 1 and "Differs from the grammar's German" in warnings[0], warnings
    assert "“Fährt der Zug um neun ab?”" in warnings[0]
    assert not badges(page) and not page.main.error


def test_a_confident_translation_as_the_grammar_writes_it_gets_its_figure_and_no_warning():
    text = "The small dog sees the old man."
    page = page_for(text)
    # the runtime's figure (0.955 on these weights: which way it rounds is the CPU's to say)
    sure = confidence(run(registry.load("en-de", torch.device("cpu")), text))
    assert sure.sentence > 0.9
    assert confidence_labels(page) == [f"confidence {sure.sentence:.0%}"]
    assert not page.main.warning and not page.main.error
    # a badge on the output's line, with no height of its own: the heatmap keeps its room
    assert badges(page) == [":green-badge[:material/check_circle: As the grammar writes it]"]


def test_the_bars_of_each_token_are_drawn_when_asked():
    page = page_for("Attention is all you need.")
    assert not page.exception
    assert not confidence_charts(page)  # nothing above the tabs until asked
    # the confidence on the output's line opens a popover with the bars, drawn only then
    page.session_state["output_bars"] = True
    page.run()
    assert not page.exception
    (bars,) = [p for p in page.main.get("popover") if p.proto.popover.label.startswith("conf")]
    assert [c.key for c in bars.get("plotly_chart")] == ["output_confidence"]
    (figure,) = [json.loads(c.proto.spec) for c in confidence_charts(page)]
    (bars,) = figure["data"]
    # the run's own tokens and probabilities, as the runtime gives them for the same text
    trace = run(registry.load("en-de", torch.device("cpu")), "Attention is all you need.")
    assert trace.output == "Um 1 seid ihr."  # nonsense: what the bars are there to show
    tokens = [html.escape(step.token) for step in trace.steps]  # escaped for SVG
    assert bars["x"] == tokens and tokens[-1] == "&lt;/s&gt;"
    np.testing.assert_allclose(bars["y"], [step.probability for step in trace.steps], atol=1e-6)
    assert min(bars["y"]) < 0.5


def test_in_presentation_mode_a_sentence_is_typed_on_the_page_not_in_the_folded_sidebar():
    """Issue 66, item 3: to type a student's sentence the lecturer had to unfold the sidebar."""
    page = page_for("The small dog sees the old man.")  # presentation mode
    box = page.text_area(key="typed_here")
    assert box.value == "The small dog sees the old man."
    box.set_value("  The old man sees the small dog.\n").run()
    assert not page.exception
    assert any("Output: Der alte Mann sieht den kleinen Hund" in m.value for m in page.markdown)
    assert page.text_area(key="text").value == "The old man sees the small dog."
    assert page.query_params["text"] == "The old man sees the small dog."
    assert page.text_area(key="typed_here").value == "The old man sees the small dog."
    # a laptop's page has the sidebar open: no second box
    page.toggle(key="present").set_value(False).run()
    assert not [t for t in page.text_area if t.key == "typed_here"]
