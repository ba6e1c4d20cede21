"""Alignment supervision (Garg et al., 2019) in training, and a fine-tune that starts from
shipped weights: issue 47's remedy for cross-attention that does not align."""

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from model.subword import SubwordTokenizer
from model.tokenization import PAD_ID
from model.train import (
    AlignmentPadder,
    Phase,
    Recipe,
    aligned_training_texts,
    alignment_loss,
    alignment_targets,
    collate,
    encode_aligned,
    loss_on_batch,
    ship,
    train,
    training_texts,
)
from model.transformer import RunSettings, make_model, padding_mask, subsequent_mask
from model.weights import without_tied_copies

ROOT = Path(__file__).resolve().parents[2]

TINY = Recipe(
    name="tiny-aligned",
    train_size=200,
    vocab_size=300,
    N=2,
    h=2,
    d_model=32,
    d_ff=64,
    batch_tokens=600,
    warmup=10,
    autocast="fp32",
    threads=1,
    moments="fp32",
    checkpoint_minutes=1000.0,
    log_every=10,
    phases=(Phase(150, 0.1),),
)


def test_gold_rows_spread_a_german_piece_evenly_over_its_english_pieces():
    # pair 0: piece 0 <- source 1; piece 1 <- sources 0 and 2; piece 2 <- none
    alignments = [[(1,), (0, 2), ()], [(0,)]]
    gold = alignment_targets(alignments, [1, 0], rows=4, columns=3)
    assert gold.shape == (2, 4, 3)
    assert gold[0].tolist() == [[1, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert gold[1].tolist() == [[0, 1, 0], [0.5, 0, 0.5], [0, 0, 0], [0, 0, 0]]


def test_the_alignment_loss_is_the_cross_entropy_over_linked_rows_only():
    gold = torch.tensor([[[1.0, 0.0], [0.5, 0.5], [0.0, 0.0]]])
    weights = torch.tensor([[[0.8, 0.2], [0.25, 0.75], [0.9, 0.1]]])
    expected = (-math.log(0.8) + -(0.5 * math.log(0.25) + 0.5 * math.log(0.75))) / 2
    assert alignment_loss(weights, gold).item() == pytest.approx(expected, rel=1e-6)


def test_aligned_texts_are_the_training_sentences_with_their_alignment(tmp_path):
    plain = training_texts(30, 5, workers=1)
    aligned = aligned_training_texts(30, 5, workers=1, cache=tmp_path)
    assert [(" ".join(en), " ".join(de)) for en, de, _ in aligned] == [
        (en.replace(".", " .").replace("?", " ?").replace(",", " ,").replace("!", " !"),
         de.replace(".", " .").replace("?", " ?").replace(",", " ,").replace("!", " !"))
        for en, de in plain
    ]  # fmt: skip
    for english, german, alignment in aligned:
        assert len(alignment) == len(german)
        assert all(0 <= i < len(english) for links in alignment for i in links)
    assert aligned_training_texts(30, 5, workers=1, cache=tmp_path) == aligned  # from the cache


def supervised_head_loss(model, tokenizer, texts, head):
    pairs, alignments = encode_aligned(texts, tokenizer)
    batch = list(range(len(pairs)))
    src, tgt = collate(pairs, batch)
    decoder_input = tgt[:, :-1]
    src_mask = padding_mask(src, PAD_ID)
    tgt_mask = padding_mask(decoder_input, PAD_ID) & subsequent_mask(decoder_input.size(1))
    with torch.inference_mode():
        out = model.eval()(src, decoder_input, src_mask, tgt_mask)
    gold = alignment_targets(alignments, batch, decoder_input.size(1), src.size(1))
    layer, h = head
    return alignment_loss(out.cross_attention[layer - 1].captured()[:, h - 1], gold).item()


def test_a_supervised_head_learns_the_gold_alignment_that_an_unsupervised_one_does_not(tmp_path):
    supervised = replace(TINY, align_head=(2, 1), align_weight=1.0)
    model_a, tok_a, _, _ = train(supervised, tmp_path / "a", workers=1, cache=tmp_path / "data")
    model_b, tok_b, _, _ = train(TINY, tmp_path / "b", workers=1, cache=tmp_path / "data")
    held_out = aligned_training_texts(40, 77, workers=1)
    with_supervision = supervised_head_loss(model_a, tok_a, held_out, (2, 1))
    without = supervised_head_loss(model_b, tok_b, held_out, (2, 1))
    assert with_supervision < 0.8 * without, (with_supervision, without)


def test_the_supervised_loss_adds_the_weighted_alignment_term(tmp_path):
    model, tokenizer, _, _ = train(
        replace(TINY, phases=(Phase(1, 1.0),)), tmp_path / "m", workers=1, cache=tmp_path / "d"
    )
    pairs, alignments = encode_aligned(aligned_training_texts(8, 3, workers=1), tokenizer)
    src, tgt = collate(pairs, list(range(8)))
    gold = alignment_targets(alignments, list(range(8)), tgt.size(1) - 1, src.size(1))
    model.eval()
    plain = loss_on_batch(model, src, tgt, 0.1, bf16=False)
    term = supervised_head_loss(model, tokenizer, aligned_training_texts(8, 3, workers=1), (1, 2))
    both = loss_on_batch(model, src, tgt, 0.1, False, align_head=(1, 2), gold_alignment=gold,
                         align_weight=0.3)  # fmt: skip
    assert both.item() == pytest.approx(plain.item() + 0.3 * term, rel=1e-5)
    # the fused forward (training on a GPU) keeps no weights: the term is computed again from the
    # head's queries and keys, and comes out the same
    fused = loss_on_batch(model, src, tgt, 0.1, False, RunSettings(capture=False),
                          align_head=(1, 2), gold_alignment=gold, align_weight=0.3)  # fmt: skip
    assert fused.item() == pytest.approx(both.item(), rel=1e-5)


def test_a_fine_tune_starts_from_the_shipped_weights_and_their_tokenizer(tmp_path):
    model, tokenizer, progress, config = train(
        TINY, tmp_path / "base", workers=1, cache=tmp_path / "data"
    )
    shipped = ship(TINY, model, tokenizer, progress, config, tmp_path, metrics={})
    # a learning rate of 0 for one step: the fine-tune's model is the shipped file (fp16), bit
    # for bit
    fine_tune = replace(
        TINY, name="ft", init_from=str(shipped), data_seed=9, phases=(Phase(1, 0.0),)
    )
    tuned, tuned_tokenizer, progress_ft, config_ft = train(
        fine_tune, tmp_path / "ft", workers=1, cache=tmp_path / "data"
    )
    assert tuned_tokenizer.to_json() == tokenizer.to_json()
    reference = load_file(str(shipped))
    for key, value in without_tied_copies(tuned.state_dict()).items():
        assert torch.equal(value, reference[key].float()), key
    assert isinstance(tuned_tokenizer, SubwordTokenizer)

    # the fine-tune's sidecar keeps what it started from (the file init_from names may be
    # replaced by the fine-tune itself when it ships)
    tuned_file = ship(fine_tune, tuned, tuned_tokenizer, progress_ft, config_ft, tmp_path / "s", {})
    base = json.loads(shipped.with_suffix(".json").read_text())
    kept = json.loads(tuned_file.with_suffix(".json").read_text())["training"]["fine_tuned_from"]
    assert kept["sha256"] == base["sha256"] and kept["steps"] == base["training"]["steps"]
    assert kept["loss_history"] == base["training"]["loss_history"]

    # `reinit`: the named parts are drawn afresh as a new model draws them (make_model, same
    # seed), and only those; again a learning rate of 0, so nothing moves after
    prefixes = ("decoder.layers.1.src_attn.", "encoder.layers.1.")
    redrawn = replace(fine_tune, name="ft-reinit", reinit=prefixes)
    tuned, _, _, config = train(redrawn, tmp_path / "ft2", workers=1, cache=tmp_path / "data")
    fresh = make_model(config, seed=TINY.seed).state_dict()
    changed = set()
    for key, value in without_tied_copies(tuned.state_dict()).items():
        if key.startswith(prefixes):
            assert torch.equal(value, fresh[key]), key
            changed.add(key)
        else:
            assert torch.equal(value, reference[key].float()), key
    assert "decoder.layers.1.src_attn.w_q.weight" in changed
    assert "encoder.layers.1.feed_forward.w_1.weight" in changed
    assert not any(key.startswith("decoder.layers.0.") for key in changed)
    with pytest.raises(ValueError, match="names no parameter"):
        train(replace(fine_tune, name="ft-x", reinit=("decoder.nothing.",)), tmp_path / "x",
              workers=1, cache=tmp_path / "data")  # fmt: skip


def test_the_loops_alignment_padder_gives_alignment_targets(tmp_path):
    """The training loop's vectorised gold alignment against `alignment_targets` (row by row) on
    corpus pairs, batches in any order, rows cut short as well as padded."""
    aligned = aligned_training_texts(120, 5, workers=1, cache=None)
    tokenizer = SubwordTokenizer.train(
        [" ".join(t) for en, de, _ in aligned for t in (en, de)], 300
    )
    pairs, alignments = encode_aligned(aligned, tokenizer)
    padder = AlignmentPadder(alignments)
    for batch in ([0], [7, 3, 119], list(range(120))[::-1]):
        src_len = max(len(pairs[i][0]) for i in batch)
        for rows in (max(len(pairs[i][1]) for i in batch) - 1, 3):
            want = alignment_targets(alignments, batch, rows, src_len)
            assert torch.equal(padder(batch, rows, src_len), want)
            assert want.sum() > 0
