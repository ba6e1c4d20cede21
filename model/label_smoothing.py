"""Label smoothing (Section 5.4): the lowest loss it leaves any model.

Apart from training so that the app can draw the floor under the loss curve without importing
the training stack.
"""

from __future__ import annotations

import math


def smoothed_loss_floor(vocab_size: int, smoothing: float) -> float:
    """The lowest label-smoothed cross-entropy any model can reach: the entropy of the smoothed
    target, (1 - ε) on the right token plus ε spread evenly over all V tokens (Section 5.4, as
    torch's `label_smoothing` spreads it)."""
    right = 1 - smoothing + smoothing / vocab_size
    other = smoothing / vocab_size
    return -(right * math.log(right) + (vocab_size - 1) * other * math.log(other))
