"""Random Unicode against the tokenizers and the Trace builder: a valid result or an InputError.

Properties checked against the vocabularies themselves, not against outputs of the code under
test: every id names its token, unknown words are really absent from the vocabulary, lengths
respect the limit and a cut is reported with the uncut length.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runtime import registry
from runtime.pretrained import minilm_tokenizer
from runtime.trace import InputError, run

# Any code point, lone surrogates included (Python strings can hold them, browsers cannot send them).
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=60)
WORDY_TEXT = st.lists(
    st.one_of(
        st.sampled_from(["the", "dog", "sees", "man", ".", ",", "?", "<s>", "</s>"]), ANY_TEXT
    ),
    max_size=12,
).map(" ".join)
LIMITS = st.integers(min_value=2, max_value=20)
PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture(scope="module")
def translator_tokenizer():
    return registry.translator_tokenizer()


@pytest.fixture(scope="module")
def wordpiece():
    return minilm_tokenizer()


def encode_unicode_only(tokenizer, text, limit):
    """`tokenizer.encode(text, limit)`, or None once it has refused a text with lone surrogates:
    not Unicode text, which the Rust tokenizer refuses (the Trace builder replaces them first)."""
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        with pytest.raises(TypeError):
            tokenizer.encode(text, limit)
        return None
    return tokenizer.encode(text, limit)


@PROPERTY_SETTINGS
@given(text=st.one_of(ANY_TEXT, WORDY_TEXT), limit=LIMITS)
def test_translator_tokenizer(translator_tokenizer, text, limit):
    result = encode_unicode_only(translator_tokenizer, text, limit)
    if result is None:
        return
    itos = translator_tokenizer.itos
    pieces = set(itos)
    assert len(result.ids) == len(result.tokens) <= limit
    assert all(itos[i] == token for i, token in zip(result.ids, result.tokens))
    # a word is unknown only where one of its characters is no piece, alone or after "##"
    for word in result.unknown:
        assert any(c not in pieces and "##" + c not in pieces for c in word), word
    if result.truncated_from is not None:
        assert result.truncated_from > limit == len(result.ids)
    assert translator_tokenizer.tokens(result.ids) == list(result.tokens)


@PROPERTY_SETTINGS
@given(text=st.one_of(ANY_TEXT, WORDY_TEXT), limit=LIMITS)
def test_wordpiece_tokenizer(wordpiece, text, limit):
    result = encode_unicode_only(wordpiece, text, limit)
    if result is None:
        return
    assert 2 <= len(result.ids) <= limit
    assert result.tokens[0] == "[CLS]" and result.tokens[-1] == "[SEP]"
    assert list(result.tokens) == wordpiece.tokens(result.ids)
    assert all(0 <= i < len(wordpiece) for i in result.ids)
    if result.truncated_from is not None:
        assert result.truncated_from > limit == len(result.ids)


def check_trace(loaded, text):
    """A valid Trace with shapes that follow its tokens, or an InputError with a message."""
    config = loaded.model.config
    try:
        trace = run(loaded, text)
    except InputError as err:
        assert str(err)
        return
    n_src = len(trace.source_tokens)
    assert 1 <= n_src <= loaded.max_source_tokens
    assert trace.attention["encoder_self"].shape == (config.N, config.h, n_src, n_src)
    assert trace.encoder_hidden_states.shape == (config.N + 1, n_src, config.d_model)
    if config.is_encoder_decoder:
        n_tgt = len(trace.target_tokens)
        assert trace.target_tokens[0] == "<s>" and len(trace.steps) == n_tgt
        assert trace.attention["decoder_self"].shape == (config.N, config.h, n_tgt, n_tgt)
        assert trace.attention["cross"].shape == (config.N, config.h, n_tgt, n_src)
        assert all(0.0 <= step.probability <= 1.0 for step in trace.steps)
    else:
        assert trace.kinds == ("encoder_self",) and trace.output == ""


SHORT_TEXT = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=10),
    st.sampled_from(["", " ", "\x00", "\ud800", "the \udfff dog"]),
)


# Each run decodes up to 2n + 10 tokens with the 512-wide model, so inputs stay short and few.
@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=SHORT_TEXT)
def test_trace_builder_untrained(untrained, text):
    check_trace(untrained, text)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.one_of(SHORT_TEXT, ANY_TEXT))
def test_trace_builder_minilm(minilm, text):
    check_trace(minilm, text)
