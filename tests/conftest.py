"""One torch thread in tests: CI has two cores, and the app server and browser need the other."""

import torch

torch.set_num_threads(1)
