"""runtime/atlas.py: a corpus's limits, its run through a model, AttentionViz's normalisation
(every attention weight recomputed from the normalised vectors) and PCA (against the
eigenvectors of the covariance matrix, a different computation than the SVD it uses)."""

import re

import numpy as np
import pytest
import torch
from sklearn.manifold import trustworthiness

from model.gold import attention_on_gold, held_out_examples
from runtime import atlas
from runtime.registry import load
from runtime.trace import InputError, run

SENTENCES = ("The cat sat on the mat.", "Where did the dog go?", "It rained all day in Porto.")


@pytest.fixture(scope="module")
def corpus(minilm):
    return atlas.run_corpus(minilm, SENTENCES)


@pytest.fixture(scope="module")
def translator():
    return load("en-de", torch.device("cpu"))


def softmax(scores: np.ndarray) -> np.ndarray:
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize(("layer", "head"), [(0, 0), (2, 7), (5, 11)])
def test_the_normalisation_leaves_every_attention_weight_unchanged(corpus, layer, head):
    points = atlas.head_points(corpus, "encoder_self", layer, head)
    queries, keys, c = atlas.normalise(points.queries, points.keys)
    assert c != pytest.approx(1.0, abs=1e-3)  # the scaling did something
    norms = np.linalg.norm(queries, axis=1).mean(), np.linalg.norm(keys, axis=1).mean()
    assert norms[0] == pytest.approx(norms[1], rel=1e-9)
    # before the scaling, keys share the queries' mean: keys·c and queries/c have one mean
    np.testing.assert_allclose((keys * c).mean(axis=0), (queries / c).mean(axis=0), atol=1e-9)
    for index, sentence in enumerate(corpus.sentences):
        q = queries[points.query_origin[:, 0] == index]
        k = keys[points.key_origin[:, 0] == index]
        weights = sentence.attention["encoder_self"][layer, head]
        # Eq. (1) from the normalised vectors gives the model's own weights
        np.testing.assert_allclose(softmax(q @ k.T * corpus.scale), weights, atol=1e-5)
        raw = points.queries[points.query_origin[:, 0] == index]
        assert not np.allclose(q, raw)  # ... although the vectors moved


def test_pca_matches_the_eigenvectors_of_the_covariance_up_to_sign():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, 6)) @ np.diag([5.0, 3.0, 1.0, 1.0, 0.5, 0.2]) + 7.0
    coords, explained = atlas.pca_2d(x)
    centred = x - x.mean(axis=0)
    values, vectors = np.linalg.eigh(np.cov(centred.T))
    order = np.argsort(values)[::-1]
    expected = centred @ vectors[:, order[:2]]
    for j in range(2):
        sign = np.sign(coords[:, j] @ expected[:, j])
        np.testing.assert_allclose(coords[:, j], sign * expected[:, j], atol=1e-9)
    np.testing.assert_allclose(explained, values[order[:2]] / values.sum(), rtol=1e-9)


def test_a_head_map_places_every_query_and_key_of_the_corpus(corpus):
    mapped = atlas.head_map(corpus, "encoder_self", 1, 3)
    tokens = sum(len(s.tokens["encoder_self"][0]) for s in corpus.sentences)
    assert mapped.query_xy.shape == mapped.key_xy.shape == (tokens, 2)
    assert tokens == corpus.n_tokens("encoder_self")
    assert 0 < mapped.explained[1] <= mapped.explained[0] < 1
    first = corpus.sentences[0].tokens["encoder_self"][0]
    assert [tuple(o) for o in mapped.points.query_origin[: len(first)]] == [
        (0, i) for i in range(len(first))
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "The corpus is empty"),
        ("  \n\t\n ", "The corpus is empty"),
        ("a line.\n" * 10_000, "10,000 lines; the atlas reads at most 500"),
        ("x" * 5_000, "Line 1 has 5,000 characters; a line may have at most 1,000"),
        ("ok.\n" + "\x00\x01\x02binary\x03" * 50, "binary data"),
        (42, "must be text"),
    ],
)
def test_a_bad_corpus_gets_a_message_that_names_the_limit(text, message):
    with pytest.raises(InputError, match=re.escape(message)):
        atlas.corpus_lines(text)


def test_a_pasted_corpus_is_its_non_blank_lines_as_typed():
    text = "  The cat sat.  \n\n<b>bold</b> <script>alert(1)</script>\r\nLast line"
    assert atlas.corpus_lines(text) == (
        "The cat sat.",
        "<b>bold</b> <script>alert(1)</script>",
        "Last line",
    )


def test_a_corpus_over_the_token_limit_is_refused_before_it_runs(minilm, monkeypatch):
    monkeypatch.setattr(atlas, "MAX_TOKENS", 12)
    with pytest.raises(InputError, match="tokens; the atlas reads at most 12"):
        atlas.run_corpus(minilm, SENTENCES)


def test_the_translator_reads_the_reference_as_the_evaluation_does(translator):
    """On held-out sentences the decoder reads the reference translation: its cross-attention
    equals model/gold.py's teacher-forced pass on the same pair (written apart from run())."""
    examples = held_out_examples(3, 2)
    corpus = atlas.run_corpus(translator, [ex.english_text for ex in examples])
    for sentence, example in zip(corpus.sentences, examples):
        assert sentence.reference is not None
        assert sentence.tokens["cross"][0] == ("<s>", *sentence.reference.target_tokens)
        with torch.inference_mode():
            _, cross, alignment, _ = attention_on_gold(
                translator.model, translator.tokenizer, example
            )
        rows = cross.shape[-2]
        np.testing.assert_allclose(sentence.attention["cross"][:, :, :rows], cross, atol=1e-5)
        assert list(sentence.reference.alignment) == [tuple(a) for a in alignment]


def same_length_group(loaded, lines, size):
    """`size` lines with one source length, the most common one among `lines`."""
    by_length = {}
    for line in lines:
        by_length.setdefault(len(loaded.tokenizer.encode(line, 512).ids), []).append(line)
    group = max(by_length.values(), key=len)
    assert len(group) >= size
    return group[:size]


def assert_as_its_own_trace(sentence, trace):
    assert tuple(sentence.attention) == trace.kinds
    for kind in trace.kinds:
        assert sentence.tokens[kind] == trace.axis_tokens(kind)
        for field in ("attention", "queries", "keys"):
            np.testing.assert_allclose(
                getattr(sentence, field)[kind], getattr(trace, field)[kind], atol=2e-5
            )


def test_a_batched_corpus_run_keeps_what_each_sentence_shows_alone(translator, minilm):
    """Sentences of one source length pass the model together, their targets of several lengths
    padded: each must keep what its own Trace (run() alone, a batch of one) shows, in the order
    of the lines, a sentence the grammar does not know (translated greedily) among them."""
    held_out = atlas.built_in_corpus(translator, 200)
    group = same_length_group(translator, held_out, 6)
    targets = {len(translator.reference(line).target_ids) for line in group}
    assert len(targets) > 1  # the padding on the right is exercised
    lines = [*group[:3], "Hello there, general Kenobi!", *group[3:]]
    reported = []
    corpus = atlas.run_corpus(translator, lines, lambda done, total: reported.append(done))
    assert reported[-1] == len(lines) and reported == sorted(reported)
    assert [s.text for s in corpus.sentences] == lines
    for sentence, line in zip(corpus.sentences, lines):
        reference = translator.reference(line)
        trace = run(translator, line, target=reference.target_ids if reference else None)
        assert_as_its_own_trace(sentence, trace)
    sentences = same_length_group(minilm, atlas.file_sentences(), 5)
    corpus = atlas.run_corpus(minilm, sentences)
    for sentence, line in zip(corpus.sentences, sentences):
        assert_as_its_own_trace(sentence, run(minilm, line))


def test_a_sentence_the_grammar_does_not_know_is_translated_by_the_model(translator):
    corpus = atlas.run_corpus(translator, ["Hello there, general Kenobi!"])
    (sentence,) = corpus.sentences
    assert sentence.reference is None and sentence.tokens["cross"][0][0] == "<s>"


def test_the_built_in_corpora(translator, minilm):
    held_out = atlas.built_in_corpus(translator, 20)
    assert len(set(held_out)) == 20
    assert all(translator.reference(text) is not None for text in held_out)
    lines = atlas.SENTENCES_FILE.read_text(encoding="utf-8").splitlines()
    sentences = atlas.file_sentences()
    assert len(sentences) == len(set(sentences)) == 300
    groups = {}  # sentence -> its group, from the file's "# group:" lines
    group = None
    for line in lines:
        if line.startswith("# group:"):
            group = line.removeprefix("# group:").strip()
        elif line.strip() and not line.startswith("#"):
            groups[line.strip()] = group
    built_in = atlas.built_in_corpus(minilm)
    assert len(built_in) == atlas.BUILT_IN_SIZE
    assert {groups[s] for s in built_in} == set(groups.values())  # every construction


def test_an_untrained_encoder_decoder_shows_its_encoder_alone(untrained):
    corpus = atlas.run_corpus(untrained, SENTENCES[:2])
    assert corpus.kinds == ("encoder_self",)
    assert all(tuple(s.attention) == ("encoder_self",) for s in corpus.sentences)


def test_a_point_of_a_head_picture_leads_back_to_its_sentence_and_position(corpus):
    points = atlas.head_points(corpus, "encoder_self", 0, 0)
    for side, origin in ((0, points.query_origin), (1, points.key_origin)):
        for index in (0, 5, len(origin) - 1):
            assert atlas.point_origin(corpus, "encoder_self", side, index) == tuple(origin[index])
        assert atlas.point_origin(corpus, "encoder_self", side, len(origin)) is None
        assert atlas.point_origin(corpus, "encoder_self", side, -1) is None


def test_tsne_keeps_neighbours_by_scikit_learns_trustworthiness():
    # three well-separated groups in 32-D: t-SNE must keep each point among its own group
    # (scikit-learn's trustworthiness, a different code than openTSNE's), and say so as it goes
    rng = np.random.default_rng(0)
    centres = rng.normal(scale=6.0, size=(3, 32))
    x = np.concatenate([c + rng.normal(size=(120, 32)) for c in centres])
    reports: list[tuple[int, int]] = []
    xy = atlas.tsne_2d(x, lambda done, total: reports.append((done, total)))
    assert xy.shape == (360, 2) and np.isfinite(xy).all()
    assert trustworthiness(x, xy, n_neighbors=10) > 0.9
    labels = np.repeat(np.arange(3), 120)
    nearest = np.argsort(((xy[:, None] - xy[None]) ** 2).sum(-1), axis=1)[:, 1]
    assert (labels[nearest] == labels).mean() > 0.98
    total = atlas.TSNE_EXAGGERATED_ITERATIONS + atlas.TSNE_ITERATIONS
    assert reports[-1] == (total, total)
    assert [d for d, _ in reports] == sorted(d for d, _ in reports)
    np.testing.assert_array_equal(atlas.tsne_2d(x), xy)  # a fixed seed: one picture per head


def test_tsne_of_a_few_points_does_not_fail():
    for n in (1, 3, 5):
        xy = atlas.tsne_2d(np.arange(n * 4, dtype=float).reshape(n, 4) ** 1.5)
        assert xy.shape == (n, 2) and np.isfinite(xy).all()


def test_a_tsne_picture_takes_whole_sentences_up_to_the_point_limit(corpus, monkeypatch):
    points = atlas.head_points(corpus, "encoder_self", 0, 0)
    lengths = [len(s.tokens["encoder_self"][0]) for s in corpus.sentences]
    # room for the first two sentences' queries and keys, one point short of the third's
    monkeypatch.setattr(atlas, "TSNE_MAX_POINTS", 2 * sum(lengths) - 1)
    mapped = atlas.head_map(corpus, "encoder_self", 0, 0, "tsne")
    assert mapped.sentences == 2 and mapped.explained is None and mapped.method == "tsne"
    drawn = lengths[0] + lengths[1]
    assert mapped.query_xy.shape == mapped.key_xy.shape == (drawn, 2)
    # each side is a prefix of the whole corpus's stack, so a click finds its point
    np.testing.assert_array_equal(mapped.points.query_origin, points.query_origin[:drawn])
    np.testing.assert_array_equal(mapped.points.keys, points.keys[:drawn])
    whole = atlas.head_map(corpus, "encoder_self", 0, 0)
    assert whole.sentences == 3 and len(whole.query_xy) == sum(lengths)
    with pytest.raises(ValueError, match="unknown projection 'umap'"):
        atlas.head_map(corpus, "encoder_self", 0, 0, "umap")


def test_a_language_models_corpus_run_is_each_lines_own_forward_in_batches():
    loaded = load("smollm2-135m", torch.device("cpu"))
    lines = ("The cat sat on the mat.", "The dog sat on the rug.", "A much longer line than both.")
    corpus = atlas.run_corpus(loaded, lines)
    assert corpus.kinds == ("decoder_self",) and (corpus.n_layers, corpus.n_heads) == (30, 9)
    for line, sentence in zip(lines, corpus.sentences):
        ids = loaded.tokenizer.encode(line, 128).ids
        with torch.inference_mode():
            out = loaded.model(torch.tensor([list(ids)]))
        assert sentence.tokens["decoder_self"][0] == tuple(loaded.tokenizer.tokens(ids))
        np.testing.assert_allclose(
            sentence.attention["decoder_self"], out.weights[:, 0].numpy(), atol=1e-5
        )
        np.testing.assert_allclose(
            sentence.keys["decoder_self"],
            torch.stack([r.keys[0] for r in out.attention]),
            atol=1e-4,
        )
