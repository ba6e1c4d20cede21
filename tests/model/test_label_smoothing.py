"""The label-smoothing loss floor against torch's own label-smoothed cross-entropy."""

import pytest
import torch
from torch.nn import functional as F

from model.label_smoothing import smoothed_loss_floor


def test_the_label_smoothing_floor_is_the_loss_of_the_best_possible_prediction():
    vocab, smoothing = 50, 0.1
    target = torch.full((vocab,), smoothing / vocab)
    target[7] += 1 - smoothing
    # Predicting the smoothed target itself is optimal: cross-entropy = its entropy.
    best = F.cross_entropy(target.log()[None], torch.tensor([7]), label_smoothing=smoothing)
    assert smoothed_loss_floor(vocab, smoothing) == pytest.approx(best.item(), rel=1e-5)
    worse = target.log() + torch.linspace(0, 0.5, vocab)
    loss = F.cross_entropy(worse[None], torch.tensor([7]), label_smoothing=smoothing)
    assert loss.item() > smoothed_loss_floor(vocab, smoothing)
