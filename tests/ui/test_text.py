"""ui.text: typed text reaches Markdown only escaped, as Streamlit would otherwise format it."""

import pytest
from streamlit.testing.v1 import AppTest

from ui.text import escape_markdown, unknown_words_markdown


def test_every_markdown_character_is_escaped():
    typed = "**bold** <b>x</b> $x^2$ [link](http://a) # head\n- item"
    escaped = escape_markdown(typed)
    assert "\n" not in escaped
    for special in "*<>$[]()#-":
        assert special not in escaped.replace("\\" + special, "")


def test_unknown_words_are_listed_as_literal_text():
    markdown = unknown_words_markdown(["**mat**", "☃"], "en-de")
    assert markdown.startswith("en\\-de reads these as \\<unk\\>")
    assert markdown.endswith(" saw in training: “\\*\\*mat\\*\\*”, “☃”")


@pytest.mark.parametrize("present", [False, True])
def test_unknown_words_are_marked_beside_the_output_in_either_mode(present):
    """The warning stands by the output, where a class sees it when presentation mode has folded
    the sidebar away, and names the typed words escaped; the sidebar does not repeat it."""
    page = AppTest.from_file("../../app.py", default_timeout=600)
    page.query_params["model"] = "paper-untrained"
    page.query_params["text"] = "The **cat** sat on the ☃."
    page.query_params["tab"] = "Model"  # a light tab: the test is about the notice
    if present:
        page.query_params["present"] = "1"
    page.run()
    assert not page.exception
    warnings = [w.value for w in page.main.warning if "reads these as" in w.value]
    assert len(warnings) == 1
    assert warnings[0].endswith("“\\*\\*cat\\*\\*”, “☃”")  # typed asterisks stay literal
    assert not [w.value for w in page.sidebar.warning]


def test_enter_at_the_end_of_the_text_does_not_travel_into_the_link():
    """Issue 66, item 8: Enter in the text box added a new line, shared in the URL as %0A."""
    page = AppTest.from_file("../../app.py", default_timeout=600)
    page.query_params["model"] = "paper-untrained"
    page.query_params["tab"] = "Model"
    page.run()
    page.text_area(key="text").set_value("The dog sleeps.\n").run()
    assert not page.exception
    assert page.text_area(key="text").value == "The dog sleeps."
    assert page.query_params["text"] == "The dog sleeps."
    # a new line inside a pasted paragraph is the reader's, and stays
    page.text_area(key="text").set_value("The dog sleeps.\nThe cat eats.").run()
    assert page.text_area(key="text").value == "The dog sleeps.\nThe cat eats."
