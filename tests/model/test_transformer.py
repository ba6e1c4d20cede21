"""The paper's architecture against independent references: PyTorch's own attention, the paper's
formulas computed here by hand, and the parameter count the architecture implies."""

import math

import pytest
import torch
from torch.nn import functional as F

from model.transformer import (
    DEFAULT_SETTINGS,
    Dropout,
    MultiHeadedAttention,
    RunSettings,
    SublayerConnection,
    TransformerConfig,
    attention,
    make_model,
    padding_mask,
    sinusoidal_table,
    subsequent_mask,
)


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(1234)


@pytest.mark.parametrize("scale", [None, 1.0, 0.05, 3.0])
@pytest.mark.parametrize("masked", [False, True])
def test_attention_equals_pytorch_sdpa_and_eq1(scale, masked):
    q, k, v = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 7, 8), torch.randn(2, 3, 7, 4)
    mask = torch.rand(2, 1, 5, 7) > 0.3 if masked else None
    if mask is not None:
        mask[..., 0] = True  # every query keeps one key
    out, weights = attention(q, k, v, mask, scale)
    reference = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
    torch.testing.assert_close(out, reference, atol=1e-5, rtol=1e-5)
    # Eq. (1) by hand, with explicit exponentials.
    s = scale if scale is not None else 1 / math.sqrt(8)
    logits = (q @ k.transpose(-1, -2)) * s
    exp = torch.exp(logits - logits.amax(-1, keepdim=True))
    if mask is not None:
        exp = exp * mask
    by_hand = exp / exp.sum(-1, keepdim=True)
    torch.testing.assert_close(weights, by_hand, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(out, by_hand @ v, atol=1e-5, rtol=1e-5)


def test_multi_headed_attention_equals_torch_multihead_attention():
    d_model, h = 32, 4
    ours = MultiHeadedAttention("encoder_self", 0, h, d_model, dropout=0.0).eval()
    theirs = torch.nn.MultiheadAttention(d_model, h, batch_first=True).eval()
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
        theirs.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
        theirs.out_proj.weight.copy_(ours.w_o.weight)
        theirs.out_proj.bias.copy_(ours.w_o.bias)
    x, memory = torch.randn(2, 6, d_model), torch.randn(2, 9, d_model)
    key_padding = torch.zeros(2, 9, dtype=torch.bool)
    key_padding[1, 6:] = True  # the second sequence has 3 padding keys
    out, record = ours(x, memory, memory, (~key_padding).unsqueeze(1), DEFAULT_SETTINGS)
    ref_out, ref_weights = theirs(
        x, memory, memory, key_padding_mask=key_padding, average_attn_weights=False
    )
    torch.testing.assert_close(out, ref_out, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(record.weights, ref_weights, atol=1e-6, rtol=1e-5)


def small_config(**overrides):
    values = dict(src_vocab=50, tgt_vocab=50, N=2, d_model=32, d_ff=64, h=4, dropout=0.0)
    values.update(overrides)
    return TransformerConfig(**values)


def run_small_model(settings=DEFAULT_SETTINGS):
    model = make_model(small_config(), seed=0).eval()
    src = torch.tensor([[5, 6, 7, 8, 0, 0], [9, 10, 11, 12, 13, 14]])
    tgt = torch.tensor([[2, 20, 21, 22], [2, 23, 24, 25]])
    out = model(src, tgt, padding_mask(src, 0), subsequent_mask(4), settings)
    return model, model.encode(src, padding_mask(src, 0), settings), out


def test_rows_sum_to_one_causal_and_padding_weights_are_exactly_zero():
    _, encoded, decoded = run_small_model()
    for record in encoded.attention + decoded.self_attention + decoded.cross_attention:
        torch.testing.assert_close(record.weights.sum(-1), torch.ones(record.weights.shape[:-1]))
    for record in decoded.self_attention:
        above_diagonal = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
        assert (record.weights[..., above_diagonal] == 0).all()
        assert (record.weights[..., ~above_diagonal] > 0).all()
    for record in encoded.attention + decoded.cross_attention:
        assert (record.weights[0, :, :, 4:] == 0).all()  # the first source has 2 padding keys
        assert (record.weights[1] > 0).all()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_dropout_zeroes_a_share_p_and_scales_the_rest_as_torchs_dropout_does(dtype):
    p, n = 0.1, 400_000
    x = torch.ones(n, dtype=dtype, requires_grad=True)
    ours = Dropout(p).train()(x)
    theirs = torch.nn.Dropout(p).train()(x.detach())
    assert ours.dtype == theirs.dtype == dtype
    # the same two values: 0 and 1 / (1 - p) as torch rounds it in this dtype
    assert (
        set(ours.unique().tolist()) == set(theirs.unique().tolist()) == {0.0, theirs.max().item()}
    )
    dropped = (ours == 0).float().mean().item()
    assert abs(dropped - p) < 5 * math.sqrt(p * (1 - p) / n)  # five standard deviations
    ours.sum().backward()
    assert torch.equal(x.grad, ours.detach())  # d(x * mask * scale)/dx on ones is the output


def test_dropout_is_the_identity_outside_training_and_follows_torchs_seed():
    x = torch.randn(3, 5, 7)
    assert Dropout(0.1).eval()(x) is x
    assert Dropout(0.0).train()(x) is x
    torch.manual_seed(7)
    first = Dropout(0.5).train()(x)
    torch.manual_seed(7)
    assert torch.equal(first, Dropout(0.5).train()(x))  # checkpoints restore torch's RNG state
    with pytest.raises(ValueError, match="dropout probability"):
        Dropout(1.0)


def test_positional_encoding_equals_the_papers_formula():
    max_len, d_model = 60, 16
    table = sinusoidal_table(max_len, d_model)
    for pos in range(max_len):
        for i in range(d_model // 2):
            angle = pos / 10000 ** (2 * i / d_model)
            assert table[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
            assert table[pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-6)


def test_embeddings_are_scaled_by_sqrt_d_model_and_positions_added():
    model = make_model(small_config(), seed=0).eval()
    ids = torch.tensor([[5, 6, 7]])
    x = model.src_embed(ids, DEFAULT_SETTINGS)
    expected = model.src_embed.tokens.lut.weight[ids] * math.sqrt(32) + sinusoidal_table(3, 32)
    torch.testing.assert_close(x, expected)
    without = model.src_embed(ids, RunSettings(use_positions=False))
    torch.testing.assert_close(without, model.src_embed.tokens.lut.weight[ids] * math.sqrt(32))


def test_sublayer_connection_is_post_norm():
    sub = SublayerConnection(8, dropout=0.0, eps=1e-5).eval()
    with torch.no_grad():
        sub.norm.weight.uniform_(0.5, 1.5)
        sub.norm.bias.uniform_(-0.5, 0.5)
    x, y = torch.randn(3, 8), torch.randn(3, 8)
    z = x + y
    mean, var = z.mean(-1, keepdim=True), z.var(-1, unbiased=False, keepdim=True)
    by_hand = (z - mean) / torch.sqrt(var + 1e-5) * sub.norm.weight + sub.norm.bias
    torch.testing.assert_close(sub(x, y), by_hand)


def test_encoder_layer_composes_post_norm_sublayers():
    model = make_model(small_config(), seed=0).eval()
    layer = model.encoder.layers[0]
    x = torch.randn(1, 5, 32)
    mask = torch.ones(1, 1, 5, dtype=torch.bool)
    attended, _ = layer.self_attn(x, x, x, mask, DEFAULT_SETTINGS)
    norm0, norm1 = layer.sublayer[0].norm, layer.sublayer[1].norm
    y = norm0(x + attended)
    expected = norm1(y + layer.feed_forward.w_2(F.relu(layer.feed_forward.w_1(y))))
    torch.testing.assert_close(layer(x, mask, DEFAULT_SETTINGS)[0], expected)


def expected_parameter_count(vocab, N, d_model, d_ff, h):
    """From the architecture (Section 3), independently of the code: biases included, one shared
    embedding / pre-softmax matrix (Section 3.4), post-norm so no extra final LayerNorm."""
    attention = 4 * (d_model * d_model + d_model)
    feed_forward = d_model * d_ff + d_ff + d_ff * d_model + d_model
    layer_norm = 2 * d_model
    encoder_layer = attention + feed_forward + 2 * layer_norm
    decoder_layer = 2 * attention + feed_forward + 3 * layer_norm
    shared_embedding, generator_bias = vocab * d_model, vocab
    return N * (encoder_layer + decoder_layer) + shared_embedding + generator_bias


def test_base_model_parameter_count_matches_the_architecture():
    config = TransformerConfig(src_vocab=37000, tgt_vocab=37000)
    with torch.device("meta"):  # counts shapes without allocating 250 MB
        model = make_model(config)
    count = sum(p.numel() for p in model.parameters())
    assert count == expected_parameter_count(37000, 6, 512, 2048, 8)
    assert 60e6 < count < 66e6  # Table 3 says 65M for the base model


@pytest.mark.parametrize("N,h,d_model", [(1, 1, 8), (3, 2, 16), (4, 8, 64)])
def test_make_model_shapes_for_other_configurations(N, h, d_model):
    model = make_model(small_config(N=N, h=h, d_model=d_model, d_ff=2 * d_model), seed=0).eval()
    src, tgt = torch.tensor([[5, 6, 7, 8, 9]]), torch.tensor([[2, 3, 4]])
    encoded = model.encode(src, padding_mask(src, 0))
    out = model(src, tgt, padding_mask(src, 0), subsequent_mask(3))
    assert encoded.memory.shape == (1, 5, d_model)
    assert out.output.shape == (1, 3, d_model)
    assert len(out.cross_attention) == N
    assert out.cross_attention[0].weights.shape == (1, h, 3, 5)
    assert out.self_attention[0].queries.shape == (1, h, 3, d_model // h)
    assert model.generator(out.output).shape == (1, 3, 50)
    count = sum(p.numel() for p in model.parameters())
    assert count == expected_parameter_count(50, N, d_model, 2 * d_model, h)


def test_scale_changes_weights_as_softmax_of_scaled_logits():
    _, default_encoded, _ = run_small_model()
    _, unscaled, _ = run_small_model(RunSettings(scale=1.0))
    first = default_encoded.attention[0]
    torch.testing.assert_close(
        unscaled.attention[0].weights,
        torch.softmax(
            (first.queries @ first.keys.transpose(-1, -2)).masked_fill(
                ~padding_mask(
                    torch.tensor([[5, 6, 7, 8, 0, 0], [9, 10, 11, 12, 13, 14]]), 0
                ).unsqueeze(1),
                float("-inf"),
            ),
            -1,
        ),
    )


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_invalid_scales_are_refused(bad):
    with pytest.raises(ValueError, match="positive"):
        RunSettings(scale=bad)


def test_ablating_a_head_changes_later_layers_only():
    _, intact, decoded = run_small_model()
    _, ablated, decoded_ablated = run_small_model(RunSettings(ablate={("encoder_self", 0, 1)}))
    torch.testing.assert_close(ablated.attention[0].weights, intact.attention[0].weights)
    assert not torch.allclose(ablated.attention[1].weights, intact.attention[1].weights)
    assert not torch.allclose(decoded_ablated.output, decoded.output)
    _, again, _ = run_small_model()
    torch.testing.assert_close(again.attention[1].weights, intact.attention[1].weights)


def test_without_autograd_every_layers_weights_are_written_into_one_stack():
    """Inference writes each layer's softmax into one [N, B, h, q, k] tensor per attention kind
    (what a Trace keeps, uncopied); the numbers are those of the autograd path, bit for bit,
    and with autograd there is no stack (softmax's `out=` has no gradient)."""
    model = make_model(small_config(), seed=0).eval()
    src = torch.tensor([[5, 6, 7, 8, 0, 0], [9, 10, 11, 12, 13, 14]])
    tgt = torch.tensor([[2, 20, 21, 22], [2, 23, 24, 25]])
    src_mask, tgt_mask = padding_mask(src, 0), subsequent_mask(4)
    with torch.no_grad():
        encoded = model.encode(src, src_mask)
        decoded = model.decode(encoded.memory, src_mask, tgt, tgt_mask)
    trained_encoded = model.encode(src, src_mask)
    trained_decoded = model.decode(trained_encoded.memory, src_mask, tgt, tgt_mask)
    assert trained_encoded.weights is None and trained_decoded.self_weights is None
    for stack, records, autograd_records in (
        (encoded.weights, encoded.attention, trained_encoded.attention),
        (decoded.self_weights, decoded.self_attention, trained_decoded.self_attention),
        (decoded.cross_weights, decoded.cross_attention, trained_decoded.cross_attention),
    ):
        assert stack.shape[:3] == (2, 2, 4)  # N layers, B sentences, h heads
        for layer, (record, autograd_record) in enumerate(zip(records, autograd_records)):
            assert record.weights.data_ptr() == stack[layer].data_ptr()  # written in place
            assert torch.equal(stack[layer], autograd_record.weights.detach())


@pytest.mark.parametrize(
    "settings",
    [
        RunSettings(),
        RunSettings(scale=0.3, window=2),  # no row left without a key
        RunSettings(ablate=frozenset({("encoder_self", 0, 1), ("cross", 1, 3)})),
    ],
    ids=["paper", "scale-and-window", "ablated"],
)
def test_the_fused_forward_computes_what_the_captured_one_does(settings):
    """`capture=False` runs Eq. (1) through torch's scaled_dot_product_attention: the same
    outputs and gradients as the captured forward (the views' path), with no weights kept."""
    model = make_model(small_config(), seed=0).eval()
    src = torch.tensor([[5, 6, 7, 8, 0, 0], [9, 10, 11, 12, 13, 14]])
    tgt = torch.tensor([[2, 20, 21, 22], [2, 23, 24, 25]])
    src_mask, tgt_mask = padding_mask(src, 0), subsequent_mask(4)
    fused_settings = RunSettings(
        settings.scale, settings.ablate, window=settings.window, capture=False
    )
    outputs, grads = [], []
    for s in (settings, fused_settings):
        model.zero_grad()
        out = model(src, tgt, src_mask, tgt_mask, s)
        out.output.square().sum().backward()
        outputs.append(out)
        # the generator's bias plays no part in the decoder's output
        grads.append({n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None})
    captured, fused = outputs
    torch.testing.assert_close(fused.output, captured.output, atol=1e-5, rtol=1e-5)
    assert grads[0].keys() == grads[1].keys() and len(grads[0]) > 40
    for name, grad in grads[0].items():
        torch.testing.assert_close(grads[1][name], grad, atol=1e-4, rtol=1e-4)
    assert all(r.weights is None for r in fused.self_attention + fused.cross_attention)
    with torch.no_grad():
        encoded = model.encode(src, src_mask, fused_settings)
    assert encoded.weights is None
    with pytest.raises(ValueError, match="capture=False"):
        encoded.attention[0].captured()


def _copy_attention(ours, theirs) -> None:
    theirs.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
    theirs.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
    theirs.out_proj.weight.copy_(ours.w_o.weight)
    theirs.out_proj.bias.copy_(ours.w_o.bias)


def _copy_norm(ours, theirs) -> None:
    theirs.weight.copy_(ours.weight)
    theirs.bias.copy_(ours.bias)


def test_pre_norm_stacks_compute_what_torchs_norm_first_transformer_does():
    """`norm_first=True` against torch.nn.Transformer(norm_first=True) with the same weights: the
    encoder's memory and the decoder's output under padding and causal masks."""
    config = TransformerConfig(
        src_vocab=50, tgt_vocab=50, N=2, d_model=32, d_ff=64, h=4, dropout=0.0, norm_first=True
    )
    model = make_model(config, seed=0).eval()
    with torch.no_grad():  # LayerNorms away from their initial 1 and 0, so that they matter
        for name, p in model.named_parameters():
            if "norm" in name:
                p.uniform_(0.5, 1.5) if name.endswith("weight") else p.uniform_(-0.5, 0.5)
    reference = torch.nn.Transformer(
        d_model=32, nhead=4, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=64,
        dropout=0.0, norm_first=True, batch_first=True,
    ).eval()  # fmt: skip
    with torch.no_grad():
        for ours, theirs in zip(model.encoder.layers, reference.encoder.layers):
            _copy_attention(ours.self_attn, theirs.self_attn)
            theirs.linear1.load_state_dict(ours.feed_forward.w_1.state_dict())
            theirs.linear2.load_state_dict(ours.feed_forward.w_2.state_dict())
            _copy_norm(ours.sublayer[0].norm, theirs.norm1)
            _copy_norm(ours.sublayer[1].norm, theirs.norm2)
        for ours, theirs in zip(model.decoder.layers, reference.decoder.layers):
            _copy_attention(ours.self_attn, theirs.self_attn)
            _copy_attention(ours.src_attn, theirs.multihead_attn)
            theirs.linear1.load_state_dict(ours.feed_forward.w_1.state_dict())
            theirs.linear2.load_state_dict(ours.feed_forward.w_2.state_dict())
            for i, norm in enumerate((theirs.norm1, theirs.norm2, theirs.norm3)):
                _copy_norm(ours.sublayer[i].norm, norm)
        _copy_norm(model.encoder.norm, reference.encoder.norm)
        _copy_norm(model.decoder.norm, reference.decoder.norm)
    src = torch.tensor([[5, 6, 7, 8, 9], [10, 11, 12, 0, 0]])
    tgt = torch.tensor([[2, 13, 14, 15], [2, 16, 17, 0]])
    src_mask = padding_mask(src, 0)
    tgt_mask = padding_mask(tgt, 0) & subsequent_mask(4)
    with torch.no_grad():
        encoded = model.encode(src, src_mask)
        decoded = model.decode(encoded.memory, src_mask, tgt, tgt_mask)
        x, y = model.src_embed(src, DEFAULT_SETTINGS), model.tgt_embed(tgt, DEFAULT_SETTINGS)
        memory = reference.encoder(x, src_key_padding_mask=src == 0)
        out = reference.decoder(
            y, memory, tgt_mask=~subsequent_mask(4)[0], tgt_key_padding_mask=tgt == 0,
            memory_key_padding_mask=src == 0,
        )  # fmt: skip
    real_src, real_tgt = src != 0, tgt != 0
    torch.testing.assert_close(encoded.memory[real_src], memory[real_src], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(decoded.output[real_tgt], out[real_tgt], atol=1e-5, rtol=1e-5)


def test_normal_embedding_initialisation_draws_from_n_0_1_over_d_model():
    config = TransformerConfig(src_vocab=4000, tgt_vocab=4000, N=1, d_model=64, d_ff=64, h=4)
    lut = make_model(config, seed=0, embedding_init="normal").src_embed.tokens.lut.weight
    assert lut.mean().abs() < 0.005
    assert lut.std().item() == pytest.approx(64**-0.5, rel=0.02)
    xavier = make_model(config, seed=0).src_embed.tokens.lut.weight
    assert xavier.abs().max() <= math.sqrt(6 / (4000 + 64))  # Glorot's bound, as before
