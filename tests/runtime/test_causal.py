"""A language model's run (runtime/causal.py) on SmolLM2: what the Trace holds against the
model's own forward, the question/continuation switch, the limit, and settings per call."""

from types import MappingProxyType, SimpleNamespace

import numpy as np
import pytest
import torch

from model.transformer import RunSettings
from runtime.causal import (
    LONGEST_ANSWER,
    MAX_NEW_TOKENS,
    answer_choices,
    answer_cost,
    default_answer,
    is_question,
    new_token_limit,
)
from runtime.registry import MODELS
from runtime.trace import run


@pytest.fixture(scope="module")
def loaded():
    return MODELS["smollm2-135m"].load(torch.device("cpu"))


def test_a_question_is_answered_through_the_chat_template(loaded):
    trace = run(loaded, "What is the capital of France?")
    assert trace.output == "The capital of France is Paris."
    assert trace.kinds == ("decoder_self",)
    tokens = trace.target_tokens
    assert tokens[0] == "<|im_start|>" and tokens[-1] == "<|im_end|>"
    assert tokens[trace.prompt_length - 1] == "↵"  # the assistant's turn begins on a new line
    assert "".join(tokens[trace.prompt_length :]) == "The capital of France is Paris.<|im_end|>"
    assert any("question" in notice for notice in trace.notices)


def test_the_trace_is_the_models_forward_over_what_it_read_and_wrote(loaded):
    trace = run(loaded, "The cat sat on the mat. The cat sat on the")
    assert trace.prompt_length == 12 and trace.steps[11].token == " mat"
    ids = torch.tensor([list(trace.source_ids) + list(trace.output_ids)])
    with torch.inference_mode():
        out = loaded.model(ids)
    n = ids.size(1)
    assert trace.attention["decoder_self"].shape == (30, 9, n, n)
    np.testing.assert_allclose(
        trace.attention["decoder_self"], out.weights[:, 0].numpy(), atol=1e-6
    )
    probs = out.logits[0].softmax(-1)
    for t in (0, 5, trace.prompt_length - 1, n - 2):  # row t scores the token after it
        step = trace.steps[t]
        assert step.probability == pytest.approx(float(probs[t, ids[0, t + 1]]), abs=1e-5)
        assert [a for a, _ in step.alternatives][0] == loaded.tokenizer.tokens(
            [int(probs[t].argmax())]
        )[0]
    assert len(trace.steps) == n and len(trace.output_ids) == MAX_NEW_TOKENS
    assert any("the most asked for" in notice for notice in trace.notices)
    assert trace.encoder_hidden_states.shape == (31, n, 576)


def test_ablating_heads_is_an_argument_of_the_call_not_state_on_the_model(loaded):
    text = "What is the capital of France?"
    ablate = frozenset(("decoder_self", layer, head) for layer in range(2) for head in range(9))
    ablated = run(loaded, text, RunSettings(ablate=ablate))
    assert ablated.output != "The capital of France is Paris."
    assert run(loaded, text).output == "The capital of France is Paris."


def test_only_a_text_that_ends_with_a_question_mark_is_asked():
    assert is_question("Why is the sky blue?  ")
    assert not is_question("Why is the sky blue")
    assert not is_question("Is it? Yes.")


def test_a_lower_limit_writes_fewer_tokens_and_leaves_the_prompt_more_room(loaded):
    """The question's answer has 8 tokens: a limit of 3 stops it after "The capital of", says
    so, and a long prompt is cut at the context less those 3 (not less the page's 32)."""
    short = run(loaded, "What is the capital of France?", max_new_tokens=3)
    assert short.output == "The capital of"
    assert any("3 tokens" in notice for notice in short.notices)
    long_text = "the cat sat on the mat . " * 400
    cut = run(loaded, long_text, max_new_tokens=3)
    assert cut.prompt_length == loaded.max_source_tokens - 3
    assert len(cut.output_ids) == 3


def test_a_questions_system_turn_is_counted_and_a_continuation_has_none(loaded):
    """SmolLM2's template writes "<|im_start|>system↵You are a helpful AI assistant named
    SmolLM, trained by Hugging Face<|im_end|>↵" before the user's turn: 21 tokens, counted by
    hand from its tokens, the user's turn starting at the 22nd."""
    trace = run(loaded, "What is the capital of France?")
    tokens = trace.target_tokens
    assert trace.system_length == 21
    assert tokens[:3] == ("<|im_start|>", "system", "↵") and tokens[19:21] == ("<|im_end|>", "↵")
    assert tokens[21:23] == ("<|im_start|>", "user")
    assert run(loaded, "The cat sat on the mat", max_new_tokens=2).system_length == 0


def test_a_longer_answer_than_the_window_holds_stops_at_the_window_and_says_so(loaded):
    """Asked for 96 tokens, a long prompt is still cut at the window less the page's 32 (a
    long answer does not eat the prompt), and the answer stops where the window ends."""
    cut = run(loaded, "the cat sat on the mat . " * 400, max_new_tokens=96)
    assert cut.prompt_length == loaded.max_source_tokens - MAX_NEW_TOKENS
    assert len(cut.output_ids) == MAX_NEW_TOKENS
    assert any(f"window of {loaded.max_source_tokens} tokens" in n for n in cut.notices)


@pytest.mark.parametrize("raw", ["0", "97", "-1", "eight", "3.5", "\u0663"])
def test_the_deployments_limit_is_a_whole_number_from_one_to_the_pages(raw):
    with pytest.raises(ValueError, match="ATLAS_MAX_NEW_TOKENS"):
        new_token_limit({"ATLAS_MAX_NEW_TOKENS": raw})


def test_the_deployments_limit_defaults_to_the_longest_answer_a_page_may_ask_for():
    assert new_token_limit({}) == LONGEST_ANSWER == 96
    assert new_token_limit({"ATLAS_MAX_NEW_TOKENS": " 8 "}) == 8
    assert new_token_limit({"ATLAS_MAX_NEW_TOKENS": "96"}) == 96


def test_the_page_offers_lengths_up_to_the_deployments_limit_and_opens_on_32():
    assert answer_choices(96) == [8, 16, 32, 64, 96]
    assert answer_choices(20) == [8, 16, 20]
    assert answer_choices(3) == [3]
    assert (default_answer(96), default_answer(20), default_answer(3)) == (32, 20, 3)
    assert MAX_NEW_TOKENS == 32


def test_the_cost_of_a_length_is_read_from_the_runs_own_timing():
    # 20 tokens in 1.5 s: 75 ms each, so 128 tokens about 9.6 s (worked by hand)
    run_ = SimpleNamespace(output_ids=(1,) * 20, timings_ms=MappingProxyType({"generate": 1500.0}))
    assert answer_cost(run_, 128) == (
        "This answer: 20 tokens in 1.5 s (75 ms a token here); 128 would take about 9.6 s."
    )
    run_ = SimpleNamespace(output_ids=(1,) * 8, timings_ms=MappingProxyType({"generate": 400.0}))
    assert answer_cost(run_, 8) == "This answer: 8 tokens in 0.4 s (50 ms a token here)."
    assert answer_cost(SimpleNamespace(output_ids=(), timings_ms={}), 8) is None
