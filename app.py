"""Attention Atlas: type a sentence, see what every layer and head of a real Transformer does.

The page script holds widgets and layout only; the maths is in model/ and viz/.
"""

from pathlib import Path

import streamlit as st

from model.weights import WeightsError
from runtime.causal import answer_choices, answer_cost, default_answer, new_token_limit
from runtime.loaded import is_language_model
from runtime.registry import (
    ModelUnavailable,
    all_models,
    default_device,
    default_model_name,
    unrunnable_models,
)
from runtime.trace import InputError
from ui import (
    ablation_tab,
    atlas_tab,
    attention_tab,
    attribution_tab,
    compare_tab,
    heads_tab,
    model_tab,
    output,
    paper_tab,
    positional_tab,
    scaling_tab,
    scenes,
    state,
    url,
)

PAGE_CSS = Path(__file__).with_name("ui") / "page.css"
PRESENTATION_CSS = Path(__file__).with_name("ui") / "presentation.css"

# Presentation mode starts with the sidebar folded away (the page has the room); before any
# widget exists, the mode is read from the session or from the URL.
presenting = st.session_state.get("present", st.query_params.get("present") == "1")
st.set_page_config(
    page_title="Attention Atlas",
    layout="wide",
    initial_sidebar_state="collapsed" if presenting else "auto",
)

url.start_run()
MODELS = all_models()  # the shipped ones, then those found on this machine (runtime/local.py)
names = list(MODELS)
url.MODEL.seed(default_model_name(), valid=lambda v: v in MODELS)
url.TEXT.seed(state.default_text(url.MODEL.current()))
url.PRESENT.seed(False)
with st.sidebar:
    st.title("Attention Atlas")
    name = st.selectbox(
        "Model",
        names,
        format_func=lambda n: MODELS[n].label,
        key=url.MODEL.name,
        on_change=state.follow_model,
    )
    st.caption(MODELS[name].summary)
    state.unrunnable_note(unrunnable_models())
    text = st.text_area(
        "Text",
        key=url.TEXT.name,
        height=110,
        max_chars=state.MAX_TEXT_CHARS,
        on_change=url.tidy_text,
        help="Ctrl+Enter runs the model (Enter starts a new line)",
    )
    # a language model's answer length goes under the text it answers, once the model is known
    answer_slot = st.container()
    scenes.sidebar()
    presentation = st.toggle("Presentation mode (everything larger)", key=url.PRESENT.name)
    st.caption(f"Running on: **{default_device().type.upper()}**")
paper_tab.sidebar_links()
st.html(f"<style>{PAGE_CSS.read_text()}</style>")
if presentation:
    st.html(f"<style>{PRESENTATION_CSS.read_text()}</style>")

# Everything above the tab bar goes in one container, so the tab bar stands at the same place
# in the page whatever the model and its run draw (a spinner, an output line, notices). When
# it moved (a scene switching from the translator to MiniLM), the browser built it anew, one tab
# at a time, and did not open the tab the server chose: the scene's tab stayed empty (issue 68).
page_top = st.container()


def _loading(fraction: float, what: str) -> None:
    loading.progress(
        fraction, text=f"Loading {MODELS[name].short_label} (once per server): {what}…"
    )


with page_top:
    loading = st.empty()  # a bar while a model found here loads (a big one takes minutes)

    try:
        state.load_with_progress(name, _loading)
        loading.empty()
        loaded = state.get_model(name)
    except (ModelUnavailable, WeightsError) as err:
        loading.empty()
        st.error(f"{MODELS[name].label} cannot be used here: {err}")
        st.info("Choose another model in the sidebar.")
        url.mirror()
        st.stop()

    decoding = "greedy"
    if loaded.model.config.is_encoder_decoder:
        url.DECODING.seed("greedy", valid=lambda v: v in ("greedy", "beam"))
        decoding = st.sidebar.radio(
            "Decoding",
            ["greedy", "beam"],
            format_func={"greedy": "greedy", "beam": "beam search (4 beams, α=0.6)"}.get,
            key=url.DECODING.name,
        )

    answer_tokens, cost = None, None
    if is_language_model(loaded):
        # How long an answer may be, and what that costs on this server (issue 66, item 5: answers
        # stopped at 32 tokens mid-sentence with no way to read on).
        limit = new_token_limit()
        choices = answer_choices(limit)
        answer_tokens = choices[0]  # a deployment's limit under the shortest choice: no choice
        if len(choices) > 1:
            url.ANSWER.seed(default_answer(limit), valid=lambda v: v in choices)
            answer_tokens = answer_slot.select_slider(
                "Longest answer (tokens)",
                choices,
                key=url.ANSWER.name,
                help="The model stops earlier where its answer ends; each token is one more step "
                "of the model, so a longer answer takes longer to write.",
            )
        cost = answer_slot.empty()

    try:
        trace = state.get_trace(name, text, decoding=decoding, answer_tokens=answer_tokens)
    except InputError as err:
        st.warning(str(err))
        url.keep_undrawn()
        url.mirror()
        st.stop()
    if cost is not None:
        said = answer_cost(trace, max(choices))
        if said:
            cost.caption(said)
    output.render(loaded, trace, text, presentation)

# Each tab's render(ctx) draws it; the keys it seeds are mirrored in the URL. Only the open tab
# runs (lazy tabs), so a change in one view does not redraw the others. A language model
# (decoder only) has no encoder to differentiate through and no Figure 1 of its own: those
# two tabs are the paper's models' alone.
PAPER_ONLY = {attribution_tab.TAB_LABEL, paper_tab.TAB_LABEL}
TABS = [
    (title, render)
    for title, render in [
        ("Attention", attention_tab.render),
        ("Heads & rollout", heads_tab.render),
        (atlas_tab.TAB_LABEL, atlas_tab.render),
        ("Ablation", ablation_tab.render),
        ("Compare", compare_tab.render),
        (attribution_tab.TAB_LABEL, attribution_tab.render),
        ("Positional encoding", positional_tab.render),
        ("Scaling 1/√d_k", scaling_tab.render),
        ("Model", model_tab.render),
        (paper_tab.TAB_LABEL, paper_tab.render),
    ]
    if not (is_language_model(loaded) and title in PAPER_ONLY)
]
ctx = state.ViewContext(name, loaded, trace, text, decoding, presentation, answer_tokens)
tabs = st.tabs([title for title, _ in TABS], key="tab", on_change="rerun", bind="query-params")
for tab, (_, render) in zip(tabs, TABS):
    if tab.open:
        with tab:
            render(ctx)
url.mirror()
