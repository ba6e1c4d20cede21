"""Read-only looks inside a loaded model for the teaching labs: the parts of the encoder input
(Sections 3.4 and 3.5), the model's own position vectors, and a word-shuffled copy of a text whose
token permutation is known.

Nothing here changes the shared model; every function reads its weights under inference mode.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from model.decoder_only import CausalLM
from model.transformer import sinusoidal_table

from .loaded import SENTENCE_ENDS, LoadedModel, capitalised_as, paper_model, read_as


@dataclass(frozen=True)
class InputParts:
    """The encoder input of one text, split into the vectors that are summed to make it.

    `parts` maps a readable name to a [token, d_model] array, in the order the model adds them.
    `total` is what the first encoder layer reads: the sum, passed through LayerNorm when the
    model has one after its embeddings (BERT does; the paper does not).
    """

    tokens: tuple[str, ...]
    parts: dict[str, np.ndarray]
    total: np.ndarray
    normalised: bool


def input_parts(loaded: LoadedModel, text: str) -> InputParts:
    """Token embedding (× √d_model in the paper, Section 3.4), token type, position (Section 3.5).

    The same sums as `InputEmbedding.forward` with positions on; dropout is inactive (eval mode).
    """
    model = paper_model(loaded)
    embed, config = model.src_embed, model.config
    tokenized = loaded.tokenizer.encode(read_as(loaded, text), loaded.max_source_tokens)
    ids = torch.tensor([tokenized.ids], device=loaded.device)
    with torch.inference_mode():
        tokens = embed.tokens(ids)[0]
        parts = {}
        if config.scale_embeddings:
            parts["token embedding × √d_model"] = tokens
        else:
            parts["word embedding"] = tokens
        total = tokens
        if embed.token_types is not None:
            token_type = embed.token_types.weight[0].expand_as(tokens)
            parts["token type"] = token_type
            total = total + token_type
        position = embed.positions(ids.size(1))
        parts["learned position" if config.positions == "learned" else "positional encoding"] = (
            position
        )
        total = total + position
        if embed.norm is not None:
            total = embed.norm(total)
    return InputParts(
        tokens=tokenized.tokens,
        parts={name: part.float().cpu().numpy() for name, part in parts.items()},
        total=total.float().cpu().numpy(),
        normalised=embed.norm is not None,
    )


def position_table(loaded: LoadedModel, n_positions: int) -> np.ndarray:
    """[position, d_model]: the vectors the model adds for positions 0..n-1 (learned or sinusoidal;
    a language model's learned table, GPT-2's, as well)."""
    if isinstance(loaded.model, CausalLM) and loaded.model.positions is not None:
        table = loaded.model.positions.weight[: min(n_positions, loaded.model.config.max_len)]
        return table.detach().float().cpu().numpy()
    model = paper_model(loaded)
    config = model.config
    n_positions = min(n_positions, config.max_len)
    if config.positions == "sinusoidal":
        return sinusoidal_table(n_positions, config.d_model).numpy()
    with torch.inference_mode():
        positions: torch.Tensor = model.src_embed.positions(n_positions)
        return positions.float().cpu().numpy()


@dataclass(frozen=True)
class ShuffledText:
    """`text` is the input with its words in another order; its token i is original token
    `permutation[i]`. Special tokens ([CLS], [SEP]) keep their places."""

    text: str
    permutation: tuple[int, ...]


def _word_groups(loaded: LoadedModel, text: str) -> tuple[list[list[int]], list[str]]:
    """Token indices grouped into words, and each word's text, for the tokens of `text`.

    Both tokenizers mark word-internal pieces with "##", and their character offsets give each
    word's text; special tokens ([CLS], [SEP]) are not grouped.
    """
    tokenizer = loaded.tokenizer
    tokens = tokenizer.encode(text, loaded.max_source_tokens).tokens
    offsets = tokenizer.offsets(text, loaded.max_source_tokens)
    groups: list[list[int]] = []
    for index, token in enumerate(tokens):
        if token in loaded.special_tokens:
            continue
        if token.startswith("##") and groups:
            groups[-1].append(index)
        else:
            groups.append([index])
    words = [text[offsets[group[0]][0] : offsets[group[-1]][1]] for group in groups]
    return groups, words


def shuffle_words(loaded: LoadedModel, text: str, seed: int) -> ShuffledText | None:
    """The words of `text` in a seeded random order, with the permutation of the tokens.

    Both texts are read as `run()` reads them (`read_as`): for a model that raises a small
    first letter, a word that would be raised at the front of the shuffled text is not put
    there (the order is rotated to start with a word that reads the same), since "dog" and
    "Dog" are different tokens ("Do ##g") and the permutation would not be the true one.

    Returns None when the shuffled text does not tokenize into exactly the permuted tokens
    (a tokenizer that reads words differently in another context), so callers never show a
    permutation that is not the true one.
    """
    text = read_as(loaded, text)
    tokens = loaded.tokenizer.encode(text, loaded.max_source_tokens).tokens
    groups, words = _word_groups(loaded, text)
    # a model that reads every text with its sentence's end keeps that end in place, as the
    # specials stay (shuffled into the middle, `run` would add a second one)
    end = words.pop() if loaded.punctuated and words and words[-1] in SENTENCE_ENDS else ""
    groups = groups[: len(words)]
    if len(groups) < 2:
        return None
    order = list(np.random.default_rng(seed).permutation(len(groups)))
    for start in range(len(order)):
        rotated = order[start:] + order[:start]
        if capitalised_as(loaded, words[rotated[0]]) == words[rotated[0]]:
            order = rotated
            break
    inner = [index for i in order for index in groups[i]]
    grouped = {index for group in groups for index in group}
    # Tokens outside the word groups (the specials) stay where they are.
    inner_iter = iter(inner)
    permutation = tuple(next(inner_iter) if i in grouped else i for i in range(len(tokens)))
    shuffled = " ".join(words[i] for i in order) + end
    retokenized = loaded.tokenizer.encode(
        read_as(loaded, shuffled), loaded.max_source_tokens
    ).tokens
    if retokenized != tuple(tokens[i] for i in permutation):
        return None
    return ShuffledText(shuffled, permutation)
