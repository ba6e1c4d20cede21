"""Marian (opus-mt's design, the paper's encoder-decoder trained on real text) read into our own
`EncoderDecoder` against transformers' MarianMTModel on the same folder: a tiny random model with
SentencePiece models trained here (tests/tiny_models.py). Token ids equal to MarianTokenizer,
every attention weight of the three kinds and the log-probabilities within 1e-4, greedy output
identical."""

import pytest
import torch

from model.transformer import subsequent_mask
from runtime import local_load
from runtime.trace import run
from tests.tiny_models import TEXTS, write_marian

transformers = pytest.importorskip("transformers")
pytest.importorskip("sentencepiece")

ATOL = 1e-4


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return write_marian(tmp_path_factory.mktemp("marian") / "tiny-marian")


@pytest.fixture(scope="module")
def ours(folder):
    return local_load.load_folder(
        folder, "dir:tiny-marian", "tiny-marian", str(folder), torch.device("cpu")
    )


@pytest.fixture(scope="module")
def theirs(folder):
    transformers.logging.set_verbosity_error()
    tokenizer = transformers.MarianTokenizer.from_pretrained(str(folder))
    model = transformers.MarianMTModel.from_pretrained(str(folder), attn_implementation="eager")
    return tokenizer, model.eval()


def test_token_ids_equal_marian_tokenizer(ours, theirs):
    for text in TEXTS:
        assert list(ours.tokenizer.encode(text).ids) == theirs[0](text)["input_ids"], text


def test_every_attention_weight_and_the_log_probabilities_equal_transformers(ours, theirs):
    model = ours.model
    for text in TEXTS:
        src = torch.tensor([ours.tokenizer.encode(text).ids])
        tgt = torch.tensor([[ours.bos_id, *src[0, :-1].tolist()[:8]]])  # any target, teacher-forced
        with torch.inference_mode():
            encoded = model.encode(src, None)
            decoded = model.decode(
                encoded.memory, None, tgt, subsequent_mask(tgt.size(1), src.device)
            )
            mine = model.generator(decoded.output)
            their = theirs[1](input_ids=src, decoder_input_ids=tgt, output_attentions=True)
        close = lambda a, b: (a - b).abs().max().item() <= ATOL  # noqa: E731
        assert close(mine, their.logits.log_softmax(-1))
        for layer in range(2):
            assert close(encoded.attention[layer].weights, their.encoder_attentions[layer])
            assert close(decoded.self_attention[layer].weights, their.decoder_attentions[layer])
            assert close(decoded.cross_attention[layer].weights, their.cross_attentions[layer])


def test_greedy_output_equals_transformers_generate(ours, theirs):
    text = TEXTS[1]
    trace = run(ours, text)
    ids = torch.tensor([ours.tokenizer.encode(text).ids])
    with torch.inference_mode():
        expected = theirs[1].generate(
            ids,
            num_beams=1,
            do_sample=False,
            max_new_tokens=len(trace.output_ids),
            forced_eos_token_id=None,  # ours stops where the page's length ends, </s> or not
        )
    assert list(trace.output_ids) == expected[0, 1:].tolist()  # theirs begins with the start token
    assert trace.target_tokens[0] == "<pad>"  # Marian's decoder starts at its pad token


def test_its_positions_are_the_sinusoids_with_halves_side_by_side(ours):
    """Marian's table puts the d_model/2 sines first, then the cosines: the paper's Section 3.5
    vectors with their dimensions reordered (transformers' MarianSinusoidalPositionalEmbedding)."""
    table = ours.model.src_embed.positions(5)
    pos, d = 3, table.shape[1]
    i = torch.arange(d // 2, dtype=torch.float64)
    angle = pos / 10000 ** (2 * i / d)
    expected = torch.cat([angle.sin(), angle.cos()]).float()
    assert torch.allclose(table[pos], expected, atol=1e-6)


def test_a_piece_that_is_only_a_word_start_has_a_visible_label(ours, theirs):
    """SentencePiece may cut "▁" off a word it has no piece for: that token's label is ␣, not a
    blank row and column (seen at 1920×1080 on a tiny Marian), and every other label is the
    piece's own text with ▁ as a space."""
    seen_alone = False
    for text in TEXTS:
        ids = ours.tokenizer.encode(text).ids
        pieces = theirs[0].convert_ids_to_tokens(list(ids))
        labels = ours.tokenizer.tokens(ids)
        for piece, label in zip(pieces, labels):
            if piece == "\u2581":
                seen_alone = True
                assert label == "␣"
            elif piece != "</s>":
                assert label == piece.replace("\u2581", " ")
    assert seen_alone, "no text of TEXTS gives a lone ▁: the check above checked nothing"
