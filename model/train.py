"""Train the paper's encoder-decoder on the generated English→German corpus (Section 5).

    python -m model.train --recipe configs/en-de.toml [--minutes 150]
    python -m model.train --recipe configs/en-de-gpu.toml --device cuda

A recipe file holds everything: the data, the model's size, the device, and the training phases
(each a learning-rate factor up to a step, held or moving linearly to another factor by that
step). Adam (beta1=0.9, beta2=0.98, eps=1e-9; torch's fused kernel on a GPU), the learning rate
of Eq. (3) with warm-up, label smoothing 0.1, dropout 0.1, batches by token count, fixed seeds,
optionally under bfloat16 autocast (master weights stay float32). A recipe with
`budget_minutes` measures its own speed over its first `calibrate_steps` steps and stretches or
shrinks its phases to the step count that fits the budget: how a GPU run whose speed is not yet
known fills the minutes it has.

Training outlives a working session, so it resumes: the checkpoint directory (git-ignored;
scripts/restore-checkpoint.sh brings the last resumable one back from git history) holds the
float32 weights, Adam's moments in bfloat16 (compact, and close enough to continue), the step,
the data position, the RNG states and the tokenizer. `--minutes` stops cleanly at a checkpoint.
After the last phase the model is evaluated (or, with `--quick-look`, looked at in minutes) and
shipped as `model/weights/<name>.safetensors` with its JSON sidecar.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import time
import tomllib
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, fields, replace
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from torch import Tensor
from torch.nn import functional as F
from tqdm import tqdm

from corpus.generator import generate
from corpus.grammar import join_tokens
from corpus.natural import pairs as natural_pairs

from .subword import SubwordTokenizer, piece_alignment
from .tokenization import BOS_ID, EOS_ID, PAD_ID, UNK_ID
from .transformer import (
    DEFAULT_SETTINGS,
    EncoderDecoder,
    RunSettings,
    TransformerConfig,
    make_model,
    padding_mask,
    subsequent_mask,
)
from .weights import (
    WEIGHTS_DIR,
    WeightsError,
    check_sha256,
    load_tied,
    load_weights,
    read_sidecar,
    save_weights,
    sha256_of,
    without_tied_copies,
)

ROOT = Path(__file__).parent.parent
# generated training texts, kept on this machine (a test points it at a folder of its own)
DATA_CACHE = Path(os.environ.get("TRAIN_DATA_CACHE", ROOT / "runs" / "data"))

# (source ids, [BOS] + target ids + [EOS]) of one training pair
EncodedPair = tuple[list[int], list[int]]


@dataclass(frozen=True)
class Phase:
    """Eq. (3) times `lr_factor` up to `until_step`; with `lr_factor_end`, the factor instead
    moves linearly from `lr_factor` at the phase's first step to `lr_factor_end` at `until_step`
    (a cool-down when it ends at 0)."""

    until_step: int
    lr_factor: float
    lr_factor_end: float | None = None


@dataclass(frozen=True)
class Recipe:
    """A training recipe (configs/*.toml), recorded whole in the sidecar."""

    name: str
    # data: corpus v2, generated from a seed; the held-out sets use other seeds
    train_size: int
    data_seed: int = 1
    # the corpus version the pairs are drawn from ("v2.1" adds the constructions of a first
    # class, corpus/lesson.py); the held-out sets and their figures stay v2's
    corpus: str = "v2"
    # replay: pairs of another version mixed in, from a seed of their own (v2.1 draws v2's kinds
    # for a fifth of its pairs only; a fine-tune on it alone forgot some of v2, docs/translator.md)
    replay_size: int = 0
    replay_seed: int = 6
    replay_corpus: str = "v2"
    # the natural pairs written by hand (corpus/natural.py), each this many times: ~10,000
    # pairs beside hundreds of thousands of the grammar's would hardly be seen once
    natural_repeat: int = 0
    test_seed: int = 2
    vocab_size: int = 8000
    # the model (Table 3's names)
    N: int = 6
    h: int = 8
    d_model: int = 256
    d_ff: int = 1024
    dropout: float = 0.1
    norm_first: bool = False  # pre-norm (TransformerConfig.norm_first); the paper's is post-norm
    embedding_init: str = "xavier"  # or "normal", N(0, 1/d_model) (make_model)
    # optimisation (Section 5.3, 5.4)
    seed: int = 0
    batch_tokens: int = 4000
    warmup: int = 4000
    smoothing: float = 0.1
    # "bf16": torch.autocast; "fp32": none; "auto": bf16 on a GPU and where the CPU computes in
    # bfloat16 natively (AMX or AVX-512 BF16), else fp32 (see native_bf16)
    autocast: str = "bf16"
    # "cpu", "cuda", or "auto" (cuda when torch sees a GPU)
    device: str = "cpu"
    # Eq. (1) through torch's fused scaled_dot_product_attention (RunSettings.capture=False):
    # flash-attention kernels on a GPU; the captured attention the views need, where False
    fused_attention: bool = False
    # when set, the phases are scaled to the step count that fits this many minutes of training
    # at the speed measured over the first calibrate_steps steps, and again over the next
    # 2 x calibrate_steps (warm-up stays as written)
    budget_minutes: float | None = None
    calibrate_steps: int = 200
    threads: int = 2
    moments: str = "bf16"  # how the checkpoint stores Adam's moments: bf16 (compact) | fp32
    # a fine-tune: the first step starts from these shipped weights (and their tokenizer)
    init_from: str | None = None
    # and these parameters (name prefixes, e.g. "decoder.layers.0.src_attn.") are drawn afresh
    # as make_model draws them, not taken from init_from: the parts of a model to learn again
    reinit: tuple[str, ...] = ()
    # alignment supervision (Garg et al., 2019, "Jointly Learning to Align and Translate with
    # Transformer Models", Section 4.2): the cross-attention head [layer, head] (1-based) whose
    # rows are pulled towards the grammar's gold word alignment, by a cross-entropy term times
    # `align_weight` added to the translation loss
    align_head: tuple[int, int] | None = None
    align_weight: float = 0.05
    checkpoint_minutes: float = 10.0
    log_every: int = 50
    phases: tuple[Phase, ...] = field(default_factory=tuple)

    @property
    def steps(self) -> int:
        return self.phases[-1].until_step

    def lr_factor(self, step: int) -> float:
        return phase_factor(self.phases, step)

    def scaled_to(self, steps: int) -> Recipe:
        """The recipe with every phase's end moved in proportion, so that the last ends at
        `steps` (each phase keeps at least one step)."""
        ends: list[int] = []
        for phase in self.phases:
            end = round(phase.until_step * steps / self.steps)
            ends.append(max(end, ends[-1] + 1 if ends else 1))
        return replace(
            self, phases=tuple(replace(p, until_step=e) for p, e in zip(self.phases, ends))
        )

    @classmethod
    def read(cls, path: Path) -> Recipe:
        raw = tomllib.loads(Path(path).read_text())
        phases = tuple(Phase(**p) for p in raw.pop("phases"))
        for key in ("align_head", "reinit"):
            if key in raw:
                raw[key] = tuple(raw[key])
        return cls(**raw, phases=phases)


def phase_factor(phases: Sequence[Phase], step: int) -> float:
    """The learning-rate factor of `step` (counted from 1) under `phases`; past the last phase,
    its final factor."""
    start = 1
    for phase in phases:
        if step <= phase.until_step:
            if phase.lr_factor_end is None:
                return phase.lr_factor
            done = (step - start) / max(phase.until_step - start, 1)
            return phase.lr_factor + done * (phase.lr_factor_end - phase.lr_factor)
        start = phase.until_step + 1
    last = phases[-1]
    return last.lr_factor if last.lr_factor_end is None else last.lr_factor_end


def rate(step: int, d_model: int, warmup: int, factor: float = 1.0) -> float:
    """Eq. (3): lrate = d_model^-0.5 * min(step^-0.5, step * warmup_steps^-1.5)."""
    step = max(step, 1)
    return float(factor * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5))


# ------------------------------------------------------------------------- data


# English words, German words, and per German word the English words it translates
AlignedText = tuple[list[str], list[str], list[list[int]]]


def _generate_chunk(args: tuple[int, int, bool, str]) -> list[Any]:
    n, seed, aligned, version = args
    examples = generate(n, seed=seed, version=version)
    if aligned:
        return [
            (list(ex.english), list(ex.german), [list(a) for a in ex.alignment]) for ex in examples
        ]
    return [(ex.english_text, ex.german_text) for ex in examples]


def training_texts(
    size: int, seed: int, workers: int = 2, cache: Path | None = None, corpus: str = "v2"
) -> list[tuple[str, str]]:
    """(English, German) training pairs: corpus `corpus` in chunks of 5,000 with seeds derived
    from `seed`, generated on `workers` processes; the same list for the same arguments. `cache`
    keeps them on this machine (keyed by the arguments and the corpus's files)."""
    key = f"{size}-{seed}-{_version_key(corpus)}{_corpus_digest()}"
    if cache is not None and (cache / f"texts-{key}.json").exists():
        return [tuple(p) for p in json.loads((cache / f"texts-{key}.json").read_text())]
    texts = _generate(size, seed, workers, aligned=False, version=corpus)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        (cache / f"texts-{key}.json").write_text(json.dumps(texts, ensure_ascii=False))
    return texts


def aligned_training_texts(
    size: int, seed: int, workers: int = 2, cache: Path | None = None, corpus: str = "v2"
) -> list[AlignedText]:
    """`training_texts` as words, with the grammar's gold word alignment of every pair: the same
    sentences, for a recipe that supervises a head's alignment."""
    key = f"{size}-{seed}-{_version_key(corpus)}{_corpus_digest()}"
    file = None if cache is None else cache / f"aligned-{key}.json"
    if file is not None and file.exists():
        return [tuple(t) for t in json.loads(file.read_text())]
    texts: list[AlignedText] = _generate(size, seed, workers, aligned=True, version=corpus)
    if file is not None:
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(texts, ensure_ascii=False))
    return texts


def recipe_texts(recipe: Recipe, workers: int, cache: Path | None) -> list[Any]:
    """A recipe's training pairs: `train_size` of its corpus, then `replay_size` of its replay
    corpus (batches are shuffled, so the order here does not matter); aligned where the recipe
    supervises a head."""
    make: Callable[..., list[Any]]
    make = training_texts if recipe.align_head is None else aligned_training_texts
    texts: list[Any] = make(recipe.train_size, recipe.data_seed, workers, cache, recipe.corpus)
    if recipe.replay_size:
        texts += make(recipe.replay_size, recipe.replay_seed, workers, cache, recipe.replay_corpus)
    if recipe.natural_repeat:
        # a natural pair has no gold alignment: one "word" a side, linked to nothing, so the
        # supervised head learns nothing from it and the translation loss reads it whole
        natural = natural_pairs()
        if recipe.align_head is not None:
            texts += [([en], [de], [[]]) for en, de in natural] * recipe.natural_repeat
        else:
            texts += list(natural) * recipe.natural_repeat
    return texts


def _version_key(corpus: str) -> str:
    """A cache file's mark of its corpus version: none for v2, so v2's files keep their names."""
    return "" if corpus == "v2" else f"{corpus}-"


def _corpus_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted((ROOT / "corpus").rglob("*")):
        if path.suffix in (".py", ".tsv") and "v1" not in path.parts:
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _generate(size: int, seed: int, workers: int, aligned: bool, version: str) -> list[Any]:
    chunk = 5000
    jobs = [(min(chunk, size - start), seed * 1_000_003 + i, aligned, version) for i, start in
            enumerate(range(0, size, chunk))]  # fmt: skip
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(_generate_chunk, jobs))
    else:
        parts = [_generate_chunk(job) for job in jobs]
    return [pair for part in parts for pair in part]


def encode_pairs(
    texts: Sequence[tuple[str, str]], tokenizer: SubwordTokenizer
) -> list[EncodedPair]:
    """(source ids, [BOS] + target ids + [EOS]) for every pair."""
    src = tokenizer.encode_batch([en for en, _ in texts])
    tgt = tokenizer.encode_batch([de for _, de in texts])
    return [(s, [BOS_ID, *t, EOS_ID]) for s, t in zip(src, tgt)]


def encode_aligned(
    texts: Sequence[AlignedText], tokenizer: SubwordTokenizer
) -> tuple[list[EncodedPair], list[list[tuple[int, ...]]]]:
    """`encode_pairs` of aligned texts, and per pair the gold alignment on pieces: for target
    piece j, the source pieces its German word is aligned to (empty for a word aligned to none)."""
    pairs: list[EncodedPair] = []
    alignments: list[list[tuple[int, ...]]] = []
    for english, german, alignment in texts:
        src, src_words = tokenizer.encode_words(english)
        tgt, tgt_words = tokenizer.encode_words(german)
        pairs.append((src, [BOS_ID, *tgt, EOS_ID]))
        alignments.append(piece_alignment(src_words, tgt_words, alignment))
    return pairs, alignments


def without_unknown(
    pairs: list[EncodedPair], alignments: list[list[tuple[int, ...]]]
) -> tuple[list[EncodedPair], list[list[tuple[int, ...]]]]:
    """The pairs (and their alignments, if any) without a piece the vocabulary lacks: a pair with
    <unk> teaches the model to write it. The grammar's pairs have none (the vocabulary was
    learned from them); a natural pair may ("um 7:30 Uhr": the 8,000 pieces have no colon)."""
    keep = [i for i, (src, tgt) in enumerate(pairs) if UNK_ID not in src and UNK_ID not in tgt]
    if len(keep) < len(pairs):
        print(f"{len(pairs) - len(keep)} pairs left out: a character the vocabulary lacks")
    return [pairs[i] for i in keep], [alignments[i] for i in keep] if alignments else []


def alignment_targets(
    alignments: Sequence[Sequence[tuple[int, ...]]], batch: list[int], rows: int, columns: int
) -> Tensor:
    """[B, rows, columns]: decoder row j's gold distribution over the source pieces (Garg et al.,
    2019: the alignment normalised over each target word's links), where row j reads target
    piece j-1 and writes piece j; rows without a link (padding, </s>, unaligned words) are 0."""
    out = torch.zeros(len(batch), rows, columns)
    for b, i in enumerate(batch):
        for j, sources in enumerate(alignments[i][:rows]):
            if sources:
                out[b, j, list(sources)] = 1.0 / len(sources)
    return out


class AlignmentPadder:
    """`alignment_targets` for the training loop: each pair's links flattened once, so a batch of
    thousands of sentences is one scatter (row by row in Python it took ~0.1 s a GPU batch, as
    long as the GPU's step)."""

    def __init__(self, alignments: Sequence[Sequence[tuple[int, ...]]]) -> None:
        self.links: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for links in alignments:
            rows = [j for j, sources in enumerate(links) for _ in sources]
            columns = [s for sources in links for s in sources]
            shares = [1.0 / len(sources) for sources in links for _ in sources]
            self.links.append(
                (
                    np.array(rows, np.int64),
                    np.array(columns, np.int64),
                    np.array(shares, np.float32),
                )
            )

    def __call__(self, batch: list[int], rows: int, columns: int) -> Tensor:
        parts = [self.links[i] for i in batch]
        b = np.repeat(np.arange(len(batch)), [len(r) for r, _, _ in parts])
        j, s, share = (np.concatenate(x) for x in zip(*parts))
        keep = j < rows
        out = torch.zeros(len(batch), rows, columns)
        out[b[keep], j[keep], s[keep]] = torch.from_numpy(share[keep])
        return out


def alignment_loss(weights: Tensor, gold: Tensor) -> Tensor:
    """Garg et al. (2019), Eq. (5): the cross-entropy -sum_i G_ji log A_ji of one head's
    attention rows A [B, T, S] against the gold distributions G, averaged over the rows that
    have a link."""
    linked = gold.sum(-1) > 0
    per_row = -(gold * weights.float().clamp_min(1e-9).log()).sum(-1)
    return per_row[linked].sum() / linked.sum().clamp_min(1)


def token_batches(pairs: Sequence[EncodedPair], batch_tokens: int, seed: int) -> list[list[int]]:
    """Indices grouped so that (longest sequence x count) stays under batch_tokens (Section 5.1)."""
    return batches_by_length(
        [len(s) for s, _ in pairs], [len(t) for _, t in pairs], batch_tokens, seed
    )


def batches_by_length(
    src_lengths: list[int], tgt_lengths: list[int], batch_tokens: int, seed: int
) -> list[list[int]]:
    """`token_batches` from the pairs' lengths alone (cheap to send to another process)."""
    order = list(range(len(src_lengths)))
    random.Random(seed).shuffle(order)
    batches: list[list[int]] = []
    pool = 100 * max(1, batch_tokens // 20)  # sort within pools: similar lengths, still shuffled
    for start in range(0, len(order), pool):
        chunk = sorted(order[start : start + pool], key=tgt_lengths.__getitem__)
        batch: list[int] = []
        longest = 0
        for i in chunk:
            longest_if_added = max(longest, src_lengths[i], tgt_lengths[i])
            if batch and longest_if_added * (len(batch) + 1) > batch_tokens:
                batches.append(batch)
                batch, longest_if_added = [], max(src_lengths[i], tgt_lengths[i])
            batch.append(i)
            longest = longest_if_added
        if batch:
            batches.append(batch)
    random.Random(seed + 1).shuffle(batches)
    return batches


def collate(pairs: Sequence[EncodedPair], batch: list[int]) -> tuple[Tensor, Tensor]:
    def pad(seqs: list[list[int]]) -> Tensor:
        width = max(len(s) for s in seqs)
        return torch.tensor([s + [PAD_ID] * (width - len(s)) for s in seqs])

    return pad([pairs[i][0] for i in batch]), pad([pairs[i][1] for i in batch])


class Padder:
    """`collate` for a training run: the pairs held once as flat arrays, so a batch is padded by
    a few whole-array operations. A 24,000-token batch took 18 ms sentence by sentence here, time
    in which a GPU waits; this way the CPU prepares the next batch while the GPU works."""

    def __init__(self, pairs: Sequence[EncodedPair]):
        self.sides = [self._flat([pair[side] for pair in pairs]) for side in (0, 1)]

    @staticmethod
    def _flat(seqs: list[list[int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        lengths = np.fromiter(map(len, seqs), dtype=np.int64, count=len(seqs))
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        ids = np.fromiter((i for s in seqs for i in s), dtype=np.int64, count=int(lengths.sum()))
        return np.append(ids, PAD_ID), starts, lengths  # a PAD at the end to point padding at

    def __call__(self, batch: list[int]) -> tuple[Tensor, Tensor, int]:
        """(src, tgt) padded as `collate` pads them, and the count of target tokens predicted."""
        rows = np.asarray(batch)
        out = []
        for ids, starts, lengths in self.sides:
            width = int(lengths[rows].max())
            column = np.arange(width)
            inside = column[None, :] < lengths[rows, None]
            index = np.where(inside, starts[rows, None] + column[None, :], len(ids) - 1)
            out.append(torch.from_numpy(ids[index]))
        return out[0], out[1], int(self.sides[1][2][rows].sum()) - len(batch)


# ------------------------------------------------------------------------- loss


def resolve_device(name: str) -> torch.device:
    """The device a recipe or `--device` names; "auto" is the GPU when torch sees one."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise SystemExit(f"the recipe asks for {name}, and torch sees no GPU on this machine")
    return device


def use_bf16(autocast: str, device: torch.device) -> bool:
    """Whether a recipe's `autocast` means bfloat16 on `device`."""
    if autocast != "auto":
        return autocast == "bf16"
    return torch.cuda.is_bf16_supported() if device.type == "cuda" else native_bf16()


def native_bf16() -> bool:
    """Whether this CPU multiplies bfloat16 in hardware (AMX tiles or AVX-512 BF16). Without it,
    autocast emulates bfloat16 and a training step was measured 20x slower than in float32
    (74 s against 3.7 s on an AVX2-only AMD EPYC, 2 threads), so "auto" trains in float32."""
    return torch.cpu._is_amx_tile_supported() or torch.cpu._is_avx512_bf16_supported()


def loss_on_batch(
    model: EncoderDecoder,
    src: Tensor,
    tgt: Tensor,
    smoothing: float,
    bf16: bool,
    settings: RunSettings = DEFAULT_SETTINGS,
    align_head: tuple[int, int] | None = None,
    gold_alignment: Tensor | None = None,
    align_weight: float = 0.0,
) -> Tensor:
    """Label-smoothed cross-entropy (Section 5.4) of predicting tgt[1:] from tgt[:-1], on the
    device src and tgt are on; the forward pass under bfloat16 autocast if asked, the loss in
    float32. Nothing is read back, so a GPU is not waited on (`target_tokens` counts on the CPU).
    With `align_head` (layer, head, 1-based) and `gold_alignment` (`alignment_targets`), plus
    `align_weight` times that head's `alignment_loss`."""
    if model.generator is None:
        raise ValueError("an encoder-only model has no decoder to train")
    decoder_input, gold = tgt[:, :-1], tgt[:, 1:]
    src_mask = padding_mask(src, PAD_ID)
    tgt_mask = padding_mask(decoder_input, PAD_ID) & subsequent_mask(
        decoder_input.size(1), tgt.device
    )
    with torch.autocast(src.device.type, dtype=torch.bfloat16, enabled=bf16):
        out = model(src, decoder_input, src_mask, tgt_mask, settings)
        logits = model.generator.proj(out.output)
    loss = F.cross_entropy(
        logits.float().reshape(-1, logits.size(-1)),
        gold.reshape(-1),
        ignore_index=PAD_ID,
        label_smoothing=smoothing,
    )
    if align_head is not None and gold_alignment is not None:
        layer, head = align_head
        record = out.cross_attention[layer - 1]
        if record.weights is not None:
            weights = record.weights[:, head - 1]
        else:  # a fused forward kept no weights: Eq. (1)'s softmax again for this one head
            q, k = record.queries[:, head - 1].float(), record.keys[:, head - 1].float()
            scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
            weights = scores.masked_fill(~src_mask, float("-inf")).softmax(-1)
        loss = loss + align_weight * alignment_loss(weights, gold_alignment)
    return loss


def target_tokens(tgt: Tensor) -> int:
    """How many target tokens a batch predicts: its loss's weight in a mean over batches."""
    return int((tgt[:, 1:] != PAD_ID).sum())


# ------------------------------------------------------------------ checkpoints
# safetensors for tensors, JSON for the rest, so resuming never unpickles; progress.json holds
# the tensor file's sha256, checked before it is read.


def save_checkpoint(
    path: Path,
    model: EncoderDecoder,
    optimizer: torch.optim.Optimizer,
    progress: dict[str, Any],
    tokenizer: SubwordTokenizer,
    moments: str,
) -> None:
    path.mkdir(parents=True, exist_ok=True)
    store = torch.bfloat16 if moments == "bf16" else torch.float32
    tensors = {
        f"model.{k}": v.detach().cpu().clone().contiguous()
        for k, v in without_tied_copies(model.state_dict()).items()
    }
    opt = optimizer.state_dict()
    for index, state in opt["state"].items():
        for key, value in state.items():
            value = torch.as_tensor(value).cpu()
            if value.is_floating_point() and value.dim() > 0:
                value = value.to(store)
            tensors[f"optim.{index}.{key}"] = value.clone().contiguous()
    # dropout's random state too, so a resumed run continues as an uninterrupted one would
    tensors["rng.torch"] = torch.get_rng_state()
    if next(model.parameters()).is_cuda:
        tensors["rng.cuda"] = torch.cuda.get_rng_state()
    save_file(tensors, str(path / "checkpoint.tmp"))
    (path / "checkpoint.tmp").replace(path / "checkpoint.safetensors")
    (path / "tokenizer.json").write_text(tokenizer.to_json())
    meta = dict(
        progress,
        param_groups=opt["param_groups"],
        checkpoint_sha256=sha256_of(path / "checkpoint.safetensors"),
    )
    (path / "progress.tmp").write_text(json.dumps(meta, indent=1))
    (path / "progress.tmp").replace(path / "progress.json")


def load_checkpoint(
    path: Path, model: EncoderDecoder, optimizer: torch.optim.Optimizer
) -> dict[str, Any] | None:
    if not (path / "progress.json").exists():
        return None
    meta: dict[str, Any] = json.loads((path / "progress.json").read_text())
    if "checkpoint_sha256" not in meta:
        raise WeightsError(
            f"{path / 'progress.json'} records no sha256 to check the checkpoint against"
        )
    check_sha256(path / "checkpoint.safetensors", meta.pop("checkpoint_sha256"))
    tensors = load_file(str(path / "checkpoint.safetensors"))
    load_tied(model, {k[6:]: v for k, v in tensors.items() if k.startswith("model.")})
    state: dict[int, dict[str, Tensor]] = {}
    for name, value in tensors.items():
        if name.startswith("optim."):
            _, index, key = name.split(".", 2)
            state.setdefault(int(index), {})[key] = value.float() if value.dim() else value
    optimizer.load_state_dict({"state": state, "param_groups": meta.pop("param_groups")})
    torch.set_rng_state(tensors["rng.torch"])
    if "rng.cuda" in tensors and next(model.parameters()).is_cuda:
        torch.cuda.set_rng_state(tensors["rng.cuda"])
    return meta


# What makes a checkpoint's run the run it is. A checkpoint left by another recipe of the same
# name was resumed without a word (2026-12-04): its finished step count ended the new recipe
# before its first step, and the old model went on to be evaluated as the new one. Threads,
# device, budget and checkpoint cadence may change between the sessions of one run.
RUN_FIELDS = (
    "name corpus train_size data_seed replay_size replay_seed replay_corpus natural_repeat "
    "vocab_size N h "
    "d_model d_ff norm_first embedding_init seed batch_tokens warmup smoothing init_from "
    "reinit align_head align_weight"
).split()


def run_identity(recipe: Recipe) -> dict[str, Any]:
    """The recipe's RUN_FIELDS as a checkpoint's progress.json records them."""
    identity: dict[str, Any] = json.loads(json.dumps({k: getattr(recipe, k) for k in RUN_FIELDS}))
    return identity


def check_same_run(recipe: Recipe, checkpoint_dir: Path) -> None:
    """Raise ValueError, naming what differs, if `checkpoint_dir` holds a checkpoint of another
    run. (A checkpoint from before runs were recorded cannot be told apart, and is resumed.)"""
    file = checkpoint_dir / "progress.json"
    if not file.exists():
        return
    made = json.loads(file.read_text()).get("run")
    if made is None:
        print(f"{checkpoint_dir} records no recipe; resuming it as this recipe's", flush=True)
        return
    wanted = run_identity(recipe)
    # a field added since the checkpoint was made (natural_repeat) reads as its default there
    defaults = {f.name: f.default for f in fields(Recipe)}
    differ = [
        f"{k}: {made.get(k, defaults[k])!r} there, {wanted[k]!r} here"
        for k in wanted
        if made.get(k, defaults[k]) != wanted[k]
    ]
    if differ:
        raise ValueError(
            f"{checkpoint_dir} holds a checkpoint of another run ({'; '.join(differ)}): give "
            "this recipe a --checkpoint-dir of its own, or delete that one"
        )


def checkpoint_tokenizer(path: Path) -> SubwordTokenizer | None:
    file = path / "tokenizer.json"
    return SubwordTokenizer.from_json(file.read_text()) if file.exists() else None


def checkpoint_model(
    recipe: Recipe, checkpoint_dir: Path
) -> tuple[EncoderDecoder, SubwordTokenizer, dict[str, Any], TransformerConfig]:
    """The model of a checkpoint as it stands, mid-recipe or not, without generating the
    training data: what `--ship-now` evaluates and ships."""
    check_same_run(recipe, checkpoint_dir)
    tokenizer = checkpoint_tokenizer(checkpoint_dir)
    if tokenizer is None:
        raise WeightsError(f"{checkpoint_dir} holds no checkpoint to ship")
    config, model = build(recipe, len(tokenizer))
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    progress = load_checkpoint(checkpoint_dir, model, optimizer)
    if progress is None:
        raise WeightsError(f"{checkpoint_dir} holds no progress.json")
    return model, tokenizer, progress, config


# ------------------------------------------------------------------------ train


def build(recipe: Recipe, vocab_size: int) -> tuple[TransformerConfig, EncoderDecoder]:
    config = TransformerConfig(
        src_vocab=vocab_size,
        tgt_vocab=vocab_size,
        N=recipe.N,
        d_model=recipe.d_model,
        d_ff=recipe.d_ff,
        h=recipe.h,
        dropout=recipe.dropout,
        max_len=512,
        norm_first=recipe.norm_first,
    )
    return config, make_model(config, seed=recipe.seed, embedding_init=recipe.embedding_init)


def train(
    recipe: Recipe,
    checkpoint_dir: Path,
    minutes: float | None = None,
    stop_at: int | None = None,
    workers: int = 2,
    cache: Path | None = None,
    look: Callable[[EncoderDecoder, SubwordTokenizer], dict[str, Any]] | None = None,
    finish_by: float | None = None,
    prefetch: bool | None = None,
) -> tuple[EncoderDecoder, SubwordTokenizer, dict[str, Any], TransformerConfig]:
    """Train (or go on training) until the recipe's last step, `stop_at`, or `minutes`.
    `cache`: where this machine keeps the generated training texts between runs. `look`: held-out
    figures of the model where a run stops before the recipe's end, kept in the checkpoint's
    `looks`, so the sessions of a long run leave a curve of quality beside the loss history.
    `finish_by` (Unix seconds): a budgeted run plans to end its training by then, if that comes
    before its `budget_minutes` are up (a command on a lent GPU has a hard time limit).
    `prefetch` (default: on a GPU): each epoch's batches are grouped in another process while
    the epoch before trains (seconds for a million pairs, in which a GPU would wait).
    The model comes back on the CPU, wherever it trained."""
    check_same_run(recipe, checkpoint_dir)
    device = resolve_device(recipe.device)
    torch.set_num_threads(recipe.threads)
    started_at = time.perf_counter()
    aligned: list[AlignedText] = []
    if recipe.align_head is not None:
        aligned = recipe_texts(recipe, workers, cache)
        texts = [(join_tokens(en), join_tokens(de)) for en, de, _ in aligned]
    else:
        texts = recipe_texts(recipe, workers, cache)
    data_seconds = time.perf_counter() - started_at
    start_from = read_sidecar(ROOT / recipe.init_from) if recipe.init_from else None
    tokenizer = checkpoint_tokenizer(checkpoint_dir)
    if tokenizer is None and start_from is not None:
        tokenizer = SubwordTokenizer.from_json(json.dumps(start_from["tokenizer"]))
    if tokenizer is None:
        tokenizer = SubwordTokenizer.train([t for pair in texts for t in pair], recipe.vocab_size)
    alignments: list[list[tuple[int, ...]]] = []
    if aligned:
        pairs, alignments = encode_aligned(aligned, tokenizer)
    else:
        pairs = encode_pairs(texts, tokenizer)
    pairs, alignments = without_unknown(pairs, alignments)
    padder = Padder(pairs)
    align_padder = AlignmentPadder(alignments)
    lengths = ([len(s) for s, _ in pairs], [len(t) for _, t in pairs])
    config, model = build(recipe, len(tokenizer))
    model.to(device)
    optimizer = torch.optim.Adam(
        model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9, fused=device.type == "cuda"
    )
    progress = load_checkpoint(checkpoint_dir, model, optimizer)
    if progress is None and start_from is not None:
        assert recipe.init_from is not None
        path = ROOT / recipe.init_from
        fresh = {
            name: value.clone()
            for name, value in model.state_dict().items()
            if name.startswith(recipe.reinit)
        }
        if recipe.reinit and not fresh:
            raise ValueError(f"reinit {recipe.reinit} names no parameter of the model")
        load_tied(model, load_weights(path, start_from["sha256"]))
        model.load_state_dict(fresh, strict=False)
    progress = progress or {
        "step": 0,
        "epoch": 0,
        "batch_in_epoch": 0,
        "seconds": 0.0,
        "tokens": 0,
        "loss_history": [],
        "sessions": [],
        "run": run_identity(recipe),
    }
    recipe = recipe_of_run(recipe, progress)
    print(
        f"{len(pairs)} training pairs (generated in {data_seconds:.0f} s), vocabulary "
        f"{len(tokenizer)}, {sum(p.numel() for p in model.parameters()):,} parameters on "
        f"{device}, step {progress['step']} of {recipe.steps} ({checkpoint_dir}), ready in "
        f"{time.perf_counter() - started_at:.0f} s",
        flush=True,
    )
    bf16 = use_bf16(recipe.autocast, device)
    settings = RunSettings(capture=not recipe.fused_attention)
    # recorded in every checkpoint, so a session stopped right after a save (how a long run
    # ends a working session) still shows in the history
    session: dict[str, Any] = {
        "from_step": progress["step"],
        "autocast": "bf16" if bf16 else "fp32",
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
        "to_step": progress["step"],
    }
    progress["sessions"].append(session)

    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    def save() -> None:
        session["to_step"] = progress["step"]
        save_checkpoint(checkpoint_dir, model, optimizer, progress, tokenizer, recipe.moments)

    # a budget is planned once, at the first session's calibration; a resumed run keeps the plan
    calibrating = recipe.budget_minutes is not None and "phases" not in progress
    calibration_start: tuple[int, float] | None = None
    # planned at calibrate_steps, and again over the next 2 x calibrate_steps: on the H200
    # (2026-11-28) steps 10-150 ran at 189 ms a step and the later ones at about 90, so the plan
    # made on the first alone ended training after 3.1 of its 5 minutes
    marks = (10, recipe.calibrate_steps, 3 * recipe.calibrate_steps)
    written = recipe  # each plan scales the phases as written, not the last plan's rounding
    model.train()
    end = min(recipe.steps, stop_at or recipe.steps)
    bar = tqdm(total=end, initial=progress["step"], mininterval=10, unit="step")
    # the loss stays on the device between log lines, so a GPU is never waited on per step
    window_loss, window_tokens = torch.zeros((), device=device), 0
    window_started = segment_started = loop_started = last_save = time.perf_counter()
    deadline = time.perf_counter() + 60 * minutes if minutes else None
    stopped = False
    if prefetch is None:
        prefetch = device.type == "cuda"
    # spawned, not forked: the parent may hold a CUDA context
    grouper = ProcessPoolExecutor(1, mp_context=get_context("spawn")) if prefetch else None
    upcoming: Future[list[list[int]]] | None = None
    while progress["step"] < end and not stopped:
        epoch_args = (*lengths, recipe.batch_tokens, recipe.seed + progress["epoch"])
        batches = upcoming.result() if upcoming else batches_by_length(*epoch_args)
        if grouper is not None:
            upcoming = grouper.submit(batches_by_length, *epoch_args[:-1], epoch_args[-1] + 1)
        for batch in batches[progress["batch_in_epoch"] :]:
            if progress["step"] >= end or (deadline and time.perf_counter() > deadline):
                stopped = progress["step"] < end
                break
            step = progress["step"] + 1
            lr = rate(step, recipe.d_model, recipe.warmup, recipe.lr_factor(step))
            for group in optimizer.param_groups:
                group["lr"] = lr
            src, tgt, n_tokens = padder(batch)
            gold_alignment = None
            if alignments:
                gold_alignment = align_padder(batch, tgt.size(1) - 1, src.size(1)).to(
                    device, non_blocking=True
                )
            # no wait for the GPU here: the copy is queued behind the last step's work
            loss = loss_on_batch(
                model,
                src.to(device, non_blocking=True),
                tgt.to(device, non_blocking=True),
                recipe.smoothing,
                bf16,
                settings,
                recipe.align_head,
                gold_alignment,
                recipe.align_weight,
            )
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            progress["step"] = step
            progress["batch_in_epoch"] += 1
            progress["tokens"] += n_tokens
            window_loss += loss.detach() * n_tokens
            window_tokens += n_tokens
            bar.update(1)
            if calibrating and step - session["from_step"] in marks:
                sync()  # the first 10 steps (kernel choice, allocator) are not timed
                if calibration_start is not None:
                    recipe = plan_budget(
                        written, progress, calibration_start, loop_started, finish_by
                    )
                    end = min(recipe.steps, stop_at or recipe.steps)
                    bar.total = end
                    calibrating = step - session["from_step"] < marks[-1]
                calibration_start = (step, time.perf_counter())
            if step % recipe.log_every == 0:
                sync()
                now = time.perf_counter()
                mean_loss = window_loss.item() / window_tokens
                bar.set_postfix(
                    loss=f"{mean_loss:.3f}",
                    tok_s=f"{window_tokens / (now - window_started):.0f}",
                    lr=f"{lr:.2e}",
                )
                progress["loss_history"].append([step, round(mean_loss, 4)])
                window_loss.zero_()
                window_tokens, window_started = 0, now
            if time.perf_counter() - last_save > 60 * recipe.checkpoint_minutes:
                sync()
                progress["seconds"] += time.perf_counter() - segment_started
                save()
                segment_started = last_save = time.perf_counter()
        else:
            progress["epoch"] += 1
            progress["batch_in_epoch"] = 0
    if grouper is not None:
        grouper.shutdown(cancel_futures=True)
    sync()
    progress["seconds"] += time.perf_counter() - segment_started
    bar.close()
    if look is not None and progress["step"] < recipe.steps:  # the last step is fully evaluated
        progress.setdefault("looks", []).append(
            {"step": progress["step"], **look(model, tokenizer)}
        )
    save()
    return model.cpu(), tokenizer, progress, config


def plan_budget(
    recipe: Recipe,
    progress: dict[str, Any],
    since: tuple[int, float],
    loop_started: float,
    finish_by: float | None = None,
) -> Recipe:
    """The recipe scaled to the steps that fit `recipe.budget_minutes` of training (or the time
    left until `finish_by`, Unix seconds, if less), from the speed measured since `since`
    (step, time); the plan is kept in `progress`."""
    assert recipe.budget_minutes is not None
    first_step, first_time = since
    now = time.perf_counter()
    step_seconds = (now - first_time) / (progress["step"] - first_step)
    left = 60 * recipe.budget_minutes - (now - loop_started)
    if finish_by is not None:
        left = min(left, finish_by - time.time())
    steps = progress["step"] + max(int(left / step_seconds), 0)
    planned = recipe.scaled_to(max(steps, progress["step"] + 1))
    progress["phases"] = [asdict(p) for p in planned.phases]
    progress["step_seconds_measured"] = round(step_seconds, 5)
    print(
        f"\nmeasured {step_seconds * 1000:.1f} ms/step over steps {first_step}-{progress['step']}:"
        f" {planned.steps} steps fit {left / 60:.2f} more min; phases end at "
        f"{[p.until_step for p in planned.phases]}",
        flush=True,
    )
    return planned


def recipe_of_run(recipe: Recipe, progress: dict[str, Any]) -> Recipe:
    """The recipe as the run follows it: with its phases as a budget planned them, if one did."""
    if "phases" not in progress:
        return recipe
    return replace(recipe, phases=tuple(Phase(**p) for p in progress["phases"]))


def ship(
    recipe: Recipe,
    model: EncoderDecoder,
    tokenizer: SubwordTokenizer,
    progress: dict[str, Any],
    config: TransformerConfig,
    out_dir: Path,
    metrics: dict[str, Any],
) -> Path:
    """Write the weights (fp16) and their sidecar: config, recipe, tokenizer, history, metrics."""
    recipe = recipe_of_run(recipe, progress)
    sidecar = {
        "name": recipe.name,
        "corpus": recipe.corpus,
        "config": asdict(config),
        "tokenizer": json.loads(tokenizer.to_json()),
        "training": {
            "recipe": asdict(recipe),
            "steps": progress["step"],
            "epochs": progress["epoch"],
            "target_tokens_seen": progress["tokens"],
            "wall_time_minutes": round(progress["seconds"] / 60, 1),
            "target_tokens_per_second": round(progress["tokens"] / max(progress["seconds"], 1e-9)),
            "label_smoothing": recipe.smoothing,
            "sessions": progress["sessions"],
            "loss_history": progress["loss_history"],
            "looks": progress.get("looks", []),
        },
        "metrics": metrics,
    }
    if recipe.init_from:
        sidecar["training"]["fine_tuned_from"] = lineage(ROOT / recipe.init_from)
    path = out_dir / f"{recipe.name}.safetensors"
    save_weights(model.state_dict(), path, sidecar)
    return path


def lineage(path: Path) -> dict[str, Any]:
    """What a fine-tune started from, for its sidecar: the weights' sha256 and how they were
    trained (their own sidecar's `training`, recipe and loss history included), since the file
    `init_from` names may be replaced by the fine-tune itself when it ships."""
    base = read_sidecar(path)
    return {"sha256": base["sha256"], **base["training"]}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m model.train", description=__doc__.split("\n")[0])
    p.add_argument("--recipe", type=Path, default=ROOT / "configs" / "en-de.toml")
    p.add_argument("--minutes", type=float, help="stop at a checkpoint after this much time")
    p.add_argument("--stop-at", type=int, help="stop at this step (the recipe goes on later)")
    p.add_argument("--checkpoint-dir", type=Path, help="default: checkpoints/<name>")
    p.add_argument("--out-dir", type=Path, default=WEIGHTS_DIR)
    p.add_argument("--device", help="cpu, cuda or auto: overrides the recipe's device")
    p.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="processes generating the data"
    )
    p.add_argument(
        "--quick-look",
        action="store_true",
        help="at the recipe's end, ship with a quick held-out look (minutes) instead of the full "
        "evaluation; `python -m model.evaluate --weights FILE` completes the sidecar later",
    )
    p.add_argument(
        "--no-look",
        action="store_true",
        help="at the recipe's end, ship with no held-out figures at all (a GPU run's last "
        "minute goes to training); `python -m model.evaluate --weights FILE` adds them later",
    )
    p.add_argument(
        "--data-only",
        action="store_true",
        help="generate the recipe's training texts into this machine's cache (runs/data) and "
        "stop: how scripts/gpu-run.sh makes them while the CUDA checks run",
    )
    p.add_argument(
        "--finish-by",
        type=float,
        help="Unix time by which a budgeted recipe's training must end (its budget shrinks to "
        "fit): how scripts/gpu-run.sh keeps a run inside the GPU machine's time limit",
    )
    p.add_argument(
        "--ship-now",
        action="store_true",
        help="train no further: evaluate the checkpoint as it stands and ship it (a model "
        "ships as soon as it beats the shipped one, whether or not its recipe is done)",
    )
    args = p.parse_args(argv)
    recipe = Recipe.read(args.recipe)
    if args.device:
        recipe = replace(recipe, device=args.device)
    checkpoint_dir = args.checkpoint_dir or ROOT / "checkpoints" / recipe.name
    from .evaluate import evaluate, quick_look

    if args.data_only:
        texts = recipe_texts(recipe, args.workers, DATA_CACHE)
        print(f"{len(texts)} training pairs in {DATA_CACHE}")
        return
    if args.ship_now:
        torch.set_num_threads(recipe.threads)
        model, tokenizer, progress, config = checkpoint_model(recipe, checkpoint_dir)
    else:
        model, tokenizer, progress, config = train(
            recipe,
            checkpoint_dir,
            args.minutes,
            args.stop_at,
            args.workers,
            DATA_CACHE,
            look=lambda model, tokenizer: quick_look(model, tokenizer, recipe.test_seed),
            finish_by=args.finish_by,
        )
        if progress["step"] < recipe_of_run(recipe, progress).steps:
            print(f"held-out look at step {progress['step']}: {json.dumps(progress['looks'][-1])}")
            print(f"stopped at step {progress['step']} of {recipe.steps}; run again to go on")
            return

    model.eval()
    if args.no_look:
        metrics: dict[str, Any] = {}
    elif args.quick_look:
        model.to(resolve_device(recipe.device))
        print("a quick held-out look ...", flush=True)
        metrics = {"quick_look": quick_look(model, tokenizer, recipe.test_seed)}
        model.cpu()
    else:
        print("evaluating on the held-out sets ...", flush=True)
        metrics = evaluate(model, tokenizer, recipe.test_seed)
    path = ship(recipe, model, tokenizer, progress, config, args.out_dir, metrics)
    print(json.dumps(metrics, indent=1), f"\nshipped {path}", flush=True)


if __name__ == "__main__":
    main()
