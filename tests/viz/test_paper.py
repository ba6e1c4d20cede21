"""The paper views' numbers and figures: Figure 2's matrices against an independent recomputation
from the Trace's Q, K and V (and against the model's own sub-layer), Figure 1's shapes for the
typed sentence, raw attention on the embeddings, Table 1, and what every figure shows."""

import dataclasses
import json
import math

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from model.transformer import RunSettings, subsequent_mask
from runtime.paper import output_projection
from runtime.trace import run
from viz import paper

TEXT = "the small dog sees the old man ."


@pytest.fixture(scope="module")
def untrained_trace(untrained):
    return run(untrained, TEXT)


@pytest.fixture(scope="module")
def restricted_trace(untrained):
    return run(untrained, TEXT, RunSettings(window=2, scale=0.1))


def independent_steps(trace, kind, layer, head):
    """Eq. (1) in float64 torch, the mask written from the settings by hand."""
    q = torch.tensor(trace.queries[kind][layer, head], dtype=torch.float64)
    k = torch.tensor(trace.keys[kind][layer, head], dtype=torch.float64)
    v = torch.tensor(trace.values[kind][layer, head], dtype=torch.float64)
    n, m = len(q), len(k)
    allowed = torch.ones(n, m, dtype=torch.bool)
    window = trace.settings.window
    for i in range(n):
        for j in range(m):
            if kind == "decoder_self" and j > i:
                allowed[i, j] = False
            if kind != "cross" and window is not None and abs(i - j) > window:
                allowed[i, j] = False
    logits = q @ k.T
    scaled = logits * trace.scale
    weights = scaled.masked_fill(~allowed, float("-inf")).softmax(-1)
    output = F.scaled_dot_product_attention(
        q[None], k[None], v[None], attn_mask=allowed[None], scale=trace.scale
    )[0]
    return logits, scaled, allowed, weights, output


@pytest.mark.parametrize("kind", ["encoder_self", "decoder_self", "cross"])
@pytest.mark.parametrize("which", ["untrained_trace", "restricted_trace"])
def test_figure2_matrices_equal_an_independent_recomputation(request, which, kind):
    trace = request.getfixturevalue(which)
    for layer, head in [(0, 0), (3, 5), (5, 7)]:
        p = paper.attention_pipeline(trace, kind, layer, head)
        logits, scaled, allowed, weights, output = independent_steps(trace, kind, layer, head)
        np.testing.assert_allclose(p.logits, logits.numpy(), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(p.scaled, scaled.numpy(), rtol=1e-10, atol=1e-10)
        np.testing.assert_array_equal(p.allowed, allowed.numpy())
        assert np.isneginf(p.masked[~p.allowed]).all()
        np.testing.assert_allclose(p.weights, weights.numpy(), atol=1e-12)
        np.testing.assert_allclose(p.output, output.numpy(), atol=1e-10)
        # And the softmax is what the model itself computed in float32.
        np.testing.assert_allclose(p.weights, trace.attention[kind][layer, head], atol=2e-6)
        assert paper.softmax_drift(trace, p) < 2e-6


def test_multi_head_output_equals_the_models_sublayer(untrained, untrained_trace):
    """Concat(head_1..head_h) W^O from the Trace equals each attention sub-layer run again on its
    own input: encoder self-attention, decoder self-attention and cross attention."""
    trace, model = untrained_trace, untrained.model
    piece_ids = {piece: i for i, piece in enumerate(untrained.tokenizer.itos)}
    src = torch.tensor([[piece_ids[w] for w in trace.source_tokens]])
    tgt = torch.tensor([[piece_ids[w] for w in trace.target_tokens]])
    settings = trace.settings
    expected = {}
    with torch.inference_mode():
        x = model.src_embed(src, settings)
        for layer, block in enumerate(model.encoder.layers):
            expected[("encoder_self", layer)] = block.self_attn(x, x, x, None, settings)[0]
            x = block(x, None, settings)[0]
        memory = x
        y = model.tgt_embed(tgt, settings)
        causal = subsequent_mask(tgt.size(1))
        for layer, block in enumerate(model.decoder.layers):
            attended = block.self_attn(y, y, y, causal, settings)[0]
            expected[("decoder_self", layer)] = attended
            middle = block.sublayer[0](y, attended)
            expected[("cross", layer)] = block.src_attn(middle, memory, memory, None, settings)[0]
            y = block(y, memory, None, causal, settings)[0]
    for (kind, layer), output in expected.items():
        w_o, b_o = output_projection(model, kind, layer)
        heads = paper.multi_head(trace, kind, layer, w_o, b_o)
        h, n, d_v = heads.heads.shape
        assert heads.concat.shape == (n, h * d_v)
        np.testing.assert_array_equal(heads.concat[:, 2 * d_v : 3 * d_v], heads.heads[2])
        np.testing.assert_allclose(heads.output, output[0].numpy(), atol=2e-4, rtol=1e-4)


def test_multi_head_zeroes_ablated_heads(untrained):
    trace = run(untrained, TEXT, RunSettings(ablate={("encoder_self", 1, 3)}))
    w_o, b_o = output_projection(untrained.model, "encoder_self", 1)
    heads = paper.multi_head(trace, "encoder_self", 1, w_o, b_o)
    assert not heads.heads[3].any() and heads.heads[2].any()


def shapes_in(config, n, m, window=None):
    blocks, _, labels = paper.figure1_blocks(config, n, m, window)
    return " ".join([b.text for b in blocks] + [label[2] for label in labels]), blocks


def test_figure1_carries_the_sentences_shapes(untrained, minilm):
    config = untrained.model.config  # N=6, h=8, d_model=512, d_ff=2048
    text, blocks = shapes_in(config, 9, 11)
    for shape in ("[9, 512]", "[11, 512]", "[8, 9, 9]", "[8, 11, 11]", "[8, 11, 9]"):
        assert shape in text, shape
    assert "[9, 2048]" in text and "[11, 2048]" in text and f"[11, {config.tgt_vocab}]" in text
    assert "N = 6 ×" in text and "causal mask" in text and "Masked Multi-Head Attention" in text
    targets = {b.target for b in blocks if b.target}
    assert {"attention:encoder_self", "attention:decoder_self", "attention:cross"} <= targets
    assert {"scaling:cross", "fig2:decoder_self", "restricted:decoder_self"} <= targets
    assert {"positional", "table1", "projections"} <= targets
    assert "restricted:cross" not in targets  # cross attention is never restricted
    for target in targets:
        view, _ = paper.parse_target(target)
        assert view in paper.TARGET_LABELS

    encoder = minilm.model.config  # encoder only: h=12, d_model=384, d_ff=1536, learned positions
    text, blocks = shapes_in(encoder, 7, 0, window=3)
    assert "[12, 7, 7]" in text and "[7, 384]" in text and "[7, 1536]" in text
    assert "learned" in text and "GELU" in text and "|i − j| ≤ 3" in text
    assert "Masked" not in text and "Output Embedding" not in text and "memory" not in text
    assert not any(b.target and ("decoder" in b.target or "cross" in b.target) for b in blocks)


def test_figure1_points_are_the_clickable_blocks(untrained):
    fig = paper.figure1(untrained.model.config, 9, 11)
    points = list(fig.data[-1].customdata)
    # One point per clickable block: the encoder's and the decoder's embedding, positions and
    # feed-forward network open the same views.
    twice = sorted(t for t in set(points) if points.count(t) == 2)
    assert twice == ["positional", "projections", "table1"] and len(points) == len(set(points)) + 3
    assert all(paper.parse_target(t) for t in points)
    with pytest.raises(ValueError):
        paper.parse_target("nowhere:cross")


def test_raw_attention_and_its_diagonal(minilm):
    trace = run(minilm, TEXT)
    x = torch.tensor(trace.encoder_hidden_states[0], dtype=torch.float64)
    expected = (x @ x.T / math.sqrt(x.shape[1])).softmax(-1).numpy()
    raw = paper.raw_attention(trace.encoder_hidden_states[0])
    np.testing.assert_allclose(raw, expected, atol=1e-12)
    assert paper.diagonal_mean(raw) == pytest.approx(np.trace(expected) / len(expected))
    table = paper.projection_table(trace)
    assert list(table["layer"]) == list(range(1, 7))
    learned = np.diagonal(trace.attention["encoder_self"][2], axis1=-2, axis2=-1).mean(-1)
    row = table.iloc[2]
    assert row["heads: mean"] == pytest.approx(learned.mean())
    assert row["lowest head"] == pytest.approx(learned.min())
    # The textbook's point, on this model: without W^Q, W^K each token mostly reads itself.
    assert row["raw X"] > 3 * row["heads: mean"]


def test_table1_expressions_at_this_sentence():
    frame = paper.table1_frame(n=9, d=96, r=2, k=3).set_index("Layer Type")
    assert frame.loc["Self-Attention", "… here"] == 9 * 9 * 96
    assert frame.loc["Recurrent", "… here"] == 9 * 96 * 96
    assert frame.loc["Convolutional", "… here"] == 3 * 9 * 96 * 96
    assert frame.loc["Self-Attention (restricted)", "… here"] == 2 * 9 * 96
    assert frame.loc["Self-Attention (restricted)", "… here (steps)"] == 4  # ⌈8 / 2⌉
    assert frame.loc["Recurrent", "… here (steps)"] == 8
    assert frame.loc["Convolutional", "Maximum Path Length"] == "O(log_k(n))"


def figure_json(fig) -> dict:
    return json.loads(fig.to_json())


def assert_readable(fig) -> None:
    """A title, a title on every shown axis, and hover text on every trace with data."""
    spec = figure_json(fig)
    layout = spec["layout"]
    assert layout["title"]["text"].strip()
    for name, axis in layout.items():
        if name.startswith(("xaxis", "yaxis")) and axis.get("visible", True):
            if axis.get("showticklabels", True) is not False and "domain" not in axis:
                assert axis.get("title", {}).get("text", "").strip(), name
    for trace in spec["data"]:
        assert trace.get("hovertemplate") or trace.get("hoverinfo") == "skip", trace["type"]


def test_every_figure_has_titles_axes_and_hovers(untrained_trace, untrained):
    trace = untrained_trace
    p = paper.attention_pipeline(trace, "decoder_self", 2, 3)
    w_o, b_o = output_projection(untrained.model, "decoder_self", 2)
    heads = paper.multi_head(trace, "decoder_self", 2, w_o, b_o)
    figures = [paper.pipeline_figure(p, step) for step in paper.PIPELINE_STEPS]
    figures += [
        paper.banded_heatmap(trace, "encoder_self", 1, 1),
        paper.path_length_figure(trace.target_tokens, 2, True, 6, "paths"),
        paper.path_growth_figure(9, [1, 2], 6, "growth"),
        paper.multi_head_figure(heads.heads, p.query_tokens, "heads", highlight=3),
        paper.projected_figure(heads.output, p.query_tokens, "output"),
        paper.raw_heatmap(paper.raw_attention(trace.encoder_hidden_states[0]), TEXT.split(), "raw"),
        paper.diagonal_figure(0.7, np.array([0.1, 0.2]), 9, "diagonal"),
    ]
    for fig in figures:
        assert_readable(fig)
    inputs = figure_json(paper.inputs_figure(p))
    assert [a["text"].split(",")[0] for a in inputs["layout"]["annotations"][:3]] == [
        "Q = X·W^Q",
        "K = X·W^K",
        "V = X·W^V",
    ]
    softmax = figure_json(paper.pipeline_figure(p, "softmax"))["data"][0]
    assert (softmax["zmin"], softmax["zmax"]) == (0.0, 1.0)  # fixed scale for weights
    # Steps 1 to 3 share the colour scale ±max|QKᵀ|, so the scaling is seen as a fading.
    limits = {
        step: figure_json(paper.pipeline_figure(p, step))["data"][0]["zmax"]
        for step in ("matmul", "scale", "mask")
    }
    assert len(set(limits.values())) == 1
    assert limits["matmul"] == pytest.approx(np.abs(p.logits).max())
    grey = figure_json(paper.pipeline_figure(p, "mask"))["data"][1]
    assert "a later position" in json.dumps(grey["customdata"])


def test_typed_markup_stays_text_in_the_figures(untrained_trace):
    """Tokens are shown as characters: Plotly would render <b> or <img> in labels and hovers."""
    n = len(untrained_trace.source_tokens)
    hostile = ['<img src=x onerror="alert(1)">', "<b>bold</b>"] + ["ok"] * (n - 2)
    trace = dataclasses.replace(untrained_trace, source_tokens=tuple(hostile))
    p = paper.attention_pipeline(trace, "encoder_self", 0, 0)
    for fig in (
        paper.pipeline_figure(p, "softmax"),
        paper.pipeline_figure(p, "output"),
        paper.inputs_figure(p),
        paper.banded_heatmap(trace, "encoder_self", 0, 0),
        paper.path_length_figure(trace.source_tokens, 1, False, 6, "p"),
        paper.raw_heatmap(np.eye(n), trace.source_tokens, "raw"),
    ):
        text = fig.to_json()
        assert "<img" not in text and "<b>bold" not in text
        assert "&lt;img" in text


def test_path_length_figure_marks_what_the_model_cannot_reach():
    fig = paper.path_length_figure([f"t{i}" for i in range(10)], 1, False, 6, "p")
    heat = fig.data[0]
    assert heat.z[0][9] == 7  # ⌈9/1⌉ = 9 layers, drawn as "more than N" (N + 1)
    assert "needs 9 layers: more than the model's N = 6" in heat.customdata[0][9]
    assert heat.customdata[0][3] == "3 layer(s)" and heat.text[0][3] == "3"
    causal = paper.path_length_figure([f"t{i}" for i in range(4)], 2, True, 6, "p").data[0]
    assert np.isnan(causal.z[0][3]) and causal.customdata[0][3].startswith("never")
