"""Rotary position embeddings (RoPE; Su et al., 2021) measured on a language model's real
queries and keys, for the positional lab.

A Trace holds q and k after rotation. Rotating back by the angle of each token's own position
gives the vectors the layer made from the token's content alone; placing those at any positions
m and n and rotating again shows what RoPE does: the score q_m . k_n depends on m - n only
(RoFormer Eq. 16), so the grid of scores is constant along every diagonal.
"""

from __future__ import annotations

import numpy as np
import torch

from model.decoder_only import rope_angles, rotate


def angles(positions: int, d_k: int, base: float) -> np.ndarray:
    """[position, d_k / 2]: the angle m * theta_i each pair i is turned by at position m."""
    theta = base ** (-np.arange(0, d_k, 2, dtype=np.float64) / d_k)
    return np.arange(positions, dtype=np.float64)[:, None] * theta[None, :]


def unrotated(vectors: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    """[n, d_k] vectors rotated at `positions`, turned back to position 0 (the inverse rotation
    is the rotation by minus the angle)."""
    x = torch.tensor(np.asarray(vectors, dtype=np.float32))  # a copy: Trace arrays are read-only
    cos, sin = rope_angles(torch.from_numpy(np.asarray(positions)), x.size(-1), base)
    return rotate(x, cos, -sin).numpy()


def score_grid(
    query: np.ndarray, key: np.ndarray, positions: int, base: float, scale: float
) -> np.ndarray:
    """[m, n]: the scaled score of `query` placed at position m against `key` at position n,
    both given unrotated ([d_k] each)."""
    d_k = query.shape[-1]
    cos, sin = rope_angles(torch.arange(positions), d_k, base)
    q = rotate(torch.tensor(np.asarray(query, dtype=np.float32))[None], cos, sin)
    k = rotate(torch.tensor(np.asarray(key, dtype=np.float32))[None], cos, sin)
    return np.asarray((q @ k.T).numpy() * scale)


def score_by_distance(
    query: np.ndarray, key: np.ndarray, distances: int, base: float, scale: float
) -> np.ndarray:
    """[distance]: the scaled score of `query` against `key` placed `distance` positions
    before it, 0..distances-1 (any m with n = m - distance gives the same number)."""
    grid = score_grid(query, key, distances, base, scale)
    return np.asarray([grid[d, 0] for d in range(distances)])
