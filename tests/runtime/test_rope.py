"""RoPE measured on SmolLM2's own queries and keys (runtime/rope.py): turning the Trace's q and
k back gives what the layer made before any rotation (computed here from the residual stream),
and the score grid is constant along every diagonal (RoFormer Eq. 16)."""

import numpy as np
import pytest
import torch

from runtime import rope
from runtime.registry import MODELS
from runtime.trace import run


@pytest.fixture(scope="module")
def lm():
    loaded = MODELS["smollm2-135m"].load(torch.device("cpu"))
    return loaded, run(loaded, "The cat sat on the mat. The cat sat on the")


def test_turned_back_queries_are_the_layers_own_before_rotation(lm):
    loaded, trace = lm
    layer, head, config = 18, 6, loaded.model.config
    n = len(trace.target_tokens)
    block = loaded.model.layers[layer]
    residual = torch.tensor(trace.encoder_hidden_states[layer]).unsqueeze(0)
    with torch.inference_mode():
        q = block.self_attn.w_q(block.attention_norm(residual)).view(n, config.h, config.d_k)
        k = block.self_attn.w_k(block.attention_norm(residual)).view(n, config.h_kv, config.d_k)
    positions = np.arange(n)
    turned = rope.unrotated(trace.queries["decoder_self"][layer, head], positions, config.rope_base)
    np.testing.assert_allclose(turned, q[:, head].numpy(), atol=2e-4)
    keys = rope.unrotated(trace.keys["decoder_self"][layer, head], positions, config.rope_base)
    np.testing.assert_allclose(keys, k[:, head // config.group].numpy(), atol=2e-4)


def test_the_score_grid_depends_on_the_distance_only_and_meets_the_trace(lm):
    loaded, trace = lm
    config, layer, head, query, key = loaded.model.config, 18, 6, 9, 3
    n = len(trace.target_tokens)
    positions = np.arange(n)
    q = rope.unrotated(trace.queries["decoder_self"][layer, head], positions, config.rope_base)
    k = rope.unrotated(trace.keys["decoder_self"][layer, head], positions, config.rope_base)
    grid = rope.score_grid(q[query], k[key], 20, config.rope_base, trace.scale)
    for d in range(-19, 20):
        diagonal = np.diagonal(grid, offset=d)
        assert np.ptp(diagonal) < 1e-3 * max(1.0, np.abs(diagonal).max())
    assert np.ptp(grid) > 0.1  # and not one number everywhere
    logit = (
        trace.queries["decoder_self"][layer, head, query]
        @ trace.keys["decoder_self"][layer, head, key]
    )
    assert grid[query, key] == pytest.approx(float(logit) * trace.scale, rel=1e-4)
    by_distance = rope.score_by_distance(q[query], k[key], 20, config.rope_base, trace.scale)
    assert by_distance[query - key] == pytest.approx(grid[query, key], rel=1e-4)


def test_pair_i_turns_by_m_theta_i():
    angles = rope.angles(5, 8, 10_000.0)
    assert angles.shape == (5, 4)
    np.testing.assert_allclose(angles[3], 3 * 10_000.0 ** (-np.arange(0, 8, 2) / 8))
