"""The decoder-only model against its papers' formulas and torch's own attention, on a small
random model (the real checkpoint's checks are in tests/runtime/test_smollm2.py)."""

import math

import pytest
import torch
import torch.nn.functional as F

from model.decoder_only import CausalLM, DecoderOnlyConfig, RMSNorm, rope_angles, rotate
from model.transformer import RunSettings

CONFIG = DecoderOnlyConfig(vocab=50, N=2, d_model=24, d_ff=40, h=6, h_kv=2, rope_base=10_000.0)


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    m = CausalLM(CONFIG).eval()
    with torch.no_grad():
        for p in m.parameters():  # norms away from 1, so a skipped gain would show
            p.normal_(0, 0.3) if p.dim() > 1 else p.uniform_(0.5, 1.5)
    return m


IDS = torch.tensor([[3, 17, 5, 42, 8, 8, 19, 0, 33]])


def test_rmsnorm_is_zhang_and_sennrichs_formula():
    norm = RMSNorm(4, eps=1e-5)
    with torch.no_grad():
        norm.weight.copy_(torch.tensor([1.0, 2.0, 0.5, -1.0]))
    x = torch.tensor([[1.0, -2.0, 3.0, 0.5]])
    rms = math.sqrt((1 + 4 + 9 + 0.25) / 4 + 1e-5)
    expected = torch.tensor([[1 / rms, -4 / rms, 1.5 / rms, -0.5 / rms]])
    torch.testing.assert_close(norm(x), expected)


def test_rope_makes_q_dot_k_depend_on_the_distance_only():
    torch.manual_seed(1)
    q, k = torch.randn(16), torch.randn(16)
    cos, sin = rope_angles(torch.arange(40), 16, 10_000.0)

    def score(m, n):
        return float(rotate(q, cos[m], sin[m]) @ rotate(k, cos[n], sin[n]))

    assert score(7, 3) == pytest.approx(score(30, 26), abs=1e-4)
    assert score(12, 12) == pytest.approx(float(q @ k), abs=1e-4)  # distance 0: no rotation
    assert score(7, 3) != pytest.approx(score(7, 5), abs=1e-3)


def test_rope_rotates_each_pair_by_m_theta_i():
    # RoFormer Eq. 34 on pair i = 1 of a 4-dimensional vector: (x_1, x_3) rotated by m * theta_1
    x = torch.tensor([0.0, 1.0, 0.0, 0.0])
    m, theta_1 = 3, 10_000.0 ** (-2 / 4)
    cos, sin = rope_angles(torch.tensor([m]), 4, 10_000.0)
    y = rotate(x, cos[0], sin[0])
    torch.testing.assert_close(
        y, torch.tensor([0.0, math.cos(m * theta_1), 0.0, math.sin(m * theta_1)])
    )


def _reference_layer(block, x, positions):
    """One block written out with torch's scaled_dot_product_attention and explicit grouping."""
    c = CONFIG
    h = block.attention_norm(x)
    a = block.self_attn
    q = a.w_q(h).view(1, -1, c.h, c.d_k).transpose(1, 2)
    k = a.w_k(h).view(1, -1, c.h_kv, c.d_k).transpose(1, 2)
    v = a.w_v(h).view(1, -1, c.h_kv, c.d_k).transpose(1, 2)
    cos, sin = rope_angles(positions, c.d_k, c.rope_base)
    q, k = rotate(q, cos, sin), rotate(k, cos, sin)
    heads = []
    for i in range(c.h):  # query head i reads key/value head i // (h / h_kv)
        g = i // (c.h // c.h_kv)
        heads.append(F.scaled_dot_product_attention(q[:, i], k[:, g], v[:, g], is_causal=True))
    out = a.w_o(torch.stack(heads, 1).transpose(1, 2).reshape(1, -1, c.d_model))
    x = x + out
    return x + block.feed_forward(block.ffn_norm(x))


def test_the_forward_is_torchs_causal_attention_with_grouped_heads(model):
    with torch.inference_mode():
        out = model(IDS)
        x = model.tokens(IDS)
        for block in model.layers:
            x = _reference_layer(block, x, torch.arange(IDS.size(1)))
        logits = model.norm(x) @ model.tokens.weight.T
    torch.testing.assert_close(out.logits, logits, atol=1e-5, rtol=1e-5)


def test_captured_weights_are_causal_rows_that_sum_to_one(model):
    with torch.inference_mode():
        out = model(IDS)
    w = out.weights  # [N, B, h, n, n]
    assert w.shape == (2, 1, 6, 9, 9)
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 1, 6, 9))
    assert torch.all(w.triu(1) == 0)


def test_heads_of_one_group_read_the_same_keys(model):
    with torch.inference_mode():
        out = model(IDS)
    keys = out.attention[0].keys[0]  # [h, n, d_k], repeated per query head
    assert torch.equal(keys[0], keys[2]) and torch.equal(keys[3], keys[5])
    assert not torch.equal(keys[2], keys[3])


def test_generation_with_the_cache_equals_rerunning_the_prefix(model):
    prompt = [3, 17, 5, 42]
    generated = model.generate(prompt, 6)
    ids = list(prompt)
    with torch.inference_mode():
        for _ in range(6):
            ids.append(int(model(torch.tensor([ids])).logits[0, -1].argmax()))
    assert generated == ids[len(prompt) :]


def test_generation_stops_after_a_stop_token(model):
    first = model.generate([3, 17], 1)[0]
    assert model.generate([3, 17], 10, stop=frozenset({first})) == [first]


def test_settings_apply_as_in_the_papers_model(model):
    with torch.inference_mode():
        plain = model(IDS)
        ablated = model(IDS, RunSettings(ablate=frozenset({("decoder_self", 1, 4)})))
        windowed = model(IDS, RunSettings(window=2))
        unscaled = model(IDS, RunSettings(scale=1.0))
        no_positions = model(IDS, RunSettings(use_positions=False))
    # ablating a head of the last layer leaves every layer's attention and changes the logits
    torch.testing.assert_close(ablated.weights, plain.weights)
    assert not torch.allclose(ablated.logits, plain.logits)
    w = windowed.weights[0, 0, 0]
    assert torch.all(w.tril(-3) == 0) and w[8, 6] > 0

    # scale 1 instead of 1/sqrt(d_k) = 1/2: sharper rows (lower mean entropy)
    def entropy(weights):
        return float(-(weights * weights.clamp_min(1e-12).log()).sum(-1).mean())

    assert entropy(unscaled.weights) < entropy(plain.weights)
    # without RoPE the first layer's scores are those of the unrotated q and k
    assert not torch.allclose(no_positions.weights[0], plain.weights[0])
    # the cache and a window together: the band counts from each query's own position
    with torch.inference_mode():
        full = model(IDS, RunSettings(window=2, capture=False)).logits[0, -1]
        head = model(IDS[:, :-1], RunSettings(window=2, capture=False))
        step = model(IDS[:, -1:], RunSettings(window=2, capture=False), past=head.cache)
    torch.testing.assert_close(step.logits[0, -1], full, atol=1e-5, rtol=1e-5)


def test_a_config_that_does_not_split_into_groups_is_refused():
    with pytest.raises(ValueError, match="h_kv"):
        DecoderOnlyConfig(d_model=24, h=6, h_kv=4)
