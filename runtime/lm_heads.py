"""What heads do in a real language model, measured: attention sinks, previous-token heads and
induction heads (Olsson et al., 2022, "In-context Learning and Induction Heads", Section 2).

- A head's *sink* score is its mean weight on the first token, over every later row: a head with
  nothing to read parks its weight there (Xiao et al., 2023, "Efficient Streaming Language
  Models with Attention Sinks").
- Its *previous-token* score is its mean weight from each token to the one just before it.
- Its *induction* score comes from the standard test: a sequence of random tokens, repeated.
  In the second copy, a token's previous occurrence is T positions back; an induction head
  attends from it to the token *after* that occurrence (the one to predict), so the score is the
  mean weight from position T + i to position i + 1. Random tokens cannot be predicted the first
  time and can be copied the second, so the loss on the second half falls when the model has
  induction heads, and rises again when they are ablated.

`python -m runtime.lm_heads` prints the strongest heads of each kind and the ablation result.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np
import torch

from model.decoder_only import KIND, CausalLM
from model.transformer import RunSettings

from .loaded import LoadedModel


def sink_scores(weights: np.ndarray) -> np.ndarray:
    """[layer, head]: mean weight on key 0 over rows 1..n-1 of [layer, head, n, n] (row 0 can
    read nothing else)."""
    return np.asarray(weights[:, :, 1:, 0].mean(axis=-1))


def previous_token_scores(weights: np.ndarray) -> np.ndarray:
    """[layer, head]: mean weight from row i to key i - 1, over rows 1..n-1."""
    n = weights.shape[-1]
    rows = np.arange(1, n)
    return np.asarray(weights[:, :, rows, rows - 1].mean(axis=-1))


def induction_scores(weights: np.ndarray, period: int) -> np.ndarray:
    """[layer, head] from [..., layer, head, 2T, 2T] weights of sequences repeated once with
    period T: the mean weight from position T + i to i + 1, i = 0..T-2 (batch axes averaged)."""
    rows = np.arange(period, 2 * period - 1)
    picked = weights[..., rows, rows - period + 1]  # [..., layer, head, T - 1]
    return np.asarray(picked.reshape(-1, *picked.shape[-3:]).mean(axis=(0, -1)))


@dataclass(frozen=True)
class Ranked:
    layer: int  # 0-based
    head: int
    score: float


def strongest(scores: np.ndarray, k: int) -> list[Ranked]:
    """The `k` heads with the highest scores, best first."""
    order = np.argsort(-scores, axis=None)[:k]
    return [
        Ranked(int(layer), int(head), float(scores[layer, head]))
        for layer, head in zip(*np.unravel_index(order, scores.shape))
    ]


@dataclass(frozen=True)
class InductionTest:
    period: int  # T: the length of the random sequence, repeated once
    sequences: int
    scores: np.ndarray  # [layer, head]
    loss_first: float  # mean next-token loss (nats) over the first copy's predictions
    loss_second: float  # ... and over the second copy's


def repeated_random_tokens(period: int, sequences: int, seed: int, vocab: int) -> torch.Tensor:
    """[sequences, 2 * period] ids: `period` random ordinary tokens, then the same again. Ids
    below 1,000 (the special tokens and single bytes) are left out, or the first quarter of a
    vocabulary smaller than 4,000."""
    generator = torch.Generator().manual_seed(seed)
    first = torch.randint(min(1000, vocab // 4), vocab, (sequences, period), generator=generator)
    return torch.cat([first, first], dim=1)


def _losses(
    model: CausalLM, ids: torch.Tensor, settings: RunSettings
) -> tuple[float, float, torch.Tensor]:
    with torch.inference_mode():
        out = model(ids, settings)
    log_probs = out.logits.float().log_softmax(-1)
    nll = -log_probs[:, :-1].gather(-1, ids[:, 1:, None])[..., 0]  # row t predicts token t + 1
    period = ids.size(1) // 2
    # predictions of tokens 1..T-1 (first copy) and of T+1..2T-1 (second copy, each copied)
    return float(nll[:, : period - 1].mean()), float(nll[:, period:].mean()), out.weights


def induction_test(
    loaded: LoadedModel,
    period: int = 50,
    sequences: int = 8,
    seed: int = 0,
    ablate: frozenset[tuple[int, int]] = frozenset(),
) -> InductionTest:
    """The repeated-random-tokens test, with the (0-based layer, head) pairs in `ablate` zeroed."""
    model = loaded.model
    if not isinstance(model, CausalLM):
        raise ValueError("the induction test needs a language model")
    ids = repeated_random_tokens(period, sequences, seed, model.config.vocab).to(loaded.device)
    settings = RunSettings(ablate=frozenset((KIND, layer, head) for layer, head in ablate))
    first, second, weights = _losses(model, ids, settings)
    # the model's weights are [layer, sequence, head, ·, ·]: the sequences go first
    scores = induction_scores(weights.transpose(0, 1).float().cpu().numpy(), period)
    return InductionTest(period, sequences, scores, first, second)


@dataclass(frozen=True)
class InductionAblation:
    """The induction test intact, with its `k` strongest heads ablated, and with `k` heads drawn
    at random among those scoring under 0.1 ablated instead (the control)."""

    intact: InductionTest
    ablated: InductionTest
    control: InductionTest
    strongest: tuple[Ranked, ...]
    control_heads: tuple[tuple[int, int], ...]


def induction_ablation(loaded: LoadedModel, k: int = 3, sequences: int = 4) -> InductionAblation:
    intact = induction_test(loaded, sequences=sequences)
    top = tuple(strongest(intact.scores, k))
    weak = np.argwhere(intact.scores < 0.1)
    picked = weak[np.random.default_rng(0).choice(len(weak), k, replace=False)]
    control = tuple(sorted((int(layer), int(head)) for layer, head in picked))
    return InductionAblation(
        intact=intact,
        ablated=induction_test(
            loaded, sequences=sequences, ablate=frozenset((r.layer, r.head) for r in top)
        ),
        control=induction_test(loaded, sequences=sequences, ablate=frozenset(control)),
        strongest=top,
        control_heads=control,
    )


def named(heads: list[Ranked] | tuple[Ranked, ...]) -> str:
    return ", ".join(f"L{r.layer + 1} H{r.head + 1} {r.score:.3f}" for r in heads)


def main(argv: list[str] | None = None) -> None:
    from .atlas import file_sentences
    from .registry import MODELS, default_device

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--ablate", type=int, default=3, help="induction heads to ablate")
    parser.add_argument("--sequences", type=int, default=8)
    args = parser.parse_args(argv)
    loaded = MODELS[args.model].load(default_device())
    sinks, previous = [], []
    for line in file_sentences()[:50]:
        ids = torch.tensor([loaded.tokenizer.encode(line, 128).ids], device=loaded.device)
        with torch.inference_mode():
            weights = loaded.model(ids).weights[:, 0].float().cpu().numpy()
        sinks.append(sink_scores(weights))
        previous.append(previous_token_scores(weights))
    sink, prev = np.mean(sinks, axis=0), np.mean(previous, axis=0)
    print(
        f"over 50 sentences: {int((sink > 0.5).sum())} of {sink.size} heads put over half on token 1"
    )
    print("sink", named(strongest(sink, args.top)))
    print("previous token", named(strongest(prev, args.top)))
    study = induction_ablation(loaded, args.ablate, args.sequences)
    print("induction", named(strongest(study.intact.scores, args.top)))
    print(
        f"loss (nats), {args.sequences} sequences of 2 x {study.intact.period} tokens: first copy "
        f"{study.intact.loss_first:.3f}, second copy {study.intact.loss_second:.3f}; second copy "
        f"with the top {args.ablate} induction heads ablated {study.ablated.loss_second:.3f}, "
        f"with {args.ablate} weak heads ablated instead "
        f"({', '.join(f'L{a + 1} H{b + 1}' for a, b in study.control_heads)}) "
        f"{study.control.loss_second:.3f}"
    )


if __name__ == "__main__":
    main()
