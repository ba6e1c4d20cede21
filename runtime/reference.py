"""What a translator's corpus knows about a typed sentence, in the model's own tokens.

When the grammar the model was trained on can write the typed English sentence, it knows the
reference translation, the gold word alignment and, for a pronoun that stands for a noun of an
earlier clause, the gold coreference link. The loaded model offers this as `Reference` data
(`LoadedModel.reference(text)`), so the views never test a model's name or import a grammar.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from model.subword import SubwordTokenizer, piece_alignment


@dataclass(frozen=True)
class CorefLink:
    """A pronoun and the noun phrase it stands for, as token indices of the model."""

    source_pronoun: tuple[int, ...]  # source tokens of the English pronoun
    source_antecedent: tuple[int, ...]  # source tokens of the antecedent noun phrase
    target_pronoun: tuple[int, ...]  # reference target tokens of the German pronoun


@dataclass(frozen=True)
class Reference:
    text: str  # the reference translation
    target_tokens: tuple[str, ...]  # the reference translation in the model's tokens
    alignment: tuple[tuple[int, ...], ...]  # per target token: the source tokens it translates
    coreference: tuple[CorefLink, ...] = ()
    target_ids: tuple[int, ...] = ()  # the reference translation as the model's token ids


def _spans_in(text: str, words: Sequence[str]) -> list[tuple[int, int] | None]:
    """Where each word of the grammar's tokenization stands in the typed text (None for what
    the grammar added, such as a final full stop the user left out)."""
    spans: list[tuple[int, int] | None] = []
    at = 0
    lowered = text.lower()
    for word in words:
        match = re.compile(re.escape(word.lower())).search(lowered, at)
        if match is None or lowered[at : match.start()].strip(" \t\n,.!?"):
            spans.append(None)  # not next in the text: the grammar added it
            continue
        spans.append((match.start(), match.end()))
        at = match.end()
    return spans


# The corpus a translator whose sidecar names none learned from. A translator's reference, its
# gold alignments and its "words it never saw" are those of the corpus its sidecar names.
DEFAULT_CORPUS = "v2"


def subword_reference(
    text: str, tokenizer: SubwordTokenizer, max_tokens: int, corpus: str = DEFAULT_CORPUS
) -> Reference | None:
    """Corpus `corpus`'s reference for `text`, mapped onto the sub-word pieces the model reads."""
    from corpus.lexicon import load_version
    from corpus.parser import translate

    example = translate(text, load_version(corpus))
    if example is None:
        return None
    spans = _spans_in(text, example.english)
    offsets = tokenizer.offsets(text, max_tokens)
    present = [(i, span) for i, span in enumerate(spans) if span is not None]
    src_words = [
        next((i for i, (a, b) in present if a <= start and end <= b), -1) for start, end in offsets
    ]
    tgt_ids, tgt_words = tokenizer.encode_words(example.german)
    alignment = piece_alignment(src_words, tgt_words, example.alignment)

    def pieces(words_of_pieces: list[int], wanted: Sequence[int]) -> tuple[int, ...]:
        return tuple(p for p, w in enumerate(words_of_pieces) if w in wanted)

    links = tuple(
        CorefLink(
            pieces(src_words, (c.pronoun,)),
            pieces(src_words, c.antecedent),
            pieces(tgt_words, (c.german_pronoun,)),
        )
        for c in example.coreference
    )
    return Reference(
        example.german_text,
        tuple(tokenizer.tokens(tgt_ids)),
        tuple(alignment),
        links,
        tuple(tgt_ids),
    )


@cache
def corpus_english_words(corpus: str = DEFAULT_CORPUS) -> frozenset[str]:
    """Every English word (lower-cased) the corpus can write: each form of the lexicon's nouns,
    verbs, adjectives (with v2.1's grades), adverbs, prepositions and names, and the
    closed-class words (pronouns, auxiliaries, conjunctions, numbers) as a sample of 2,000
    generated sentences writes them (the most frequent words of every sentence; about 3 s, once
    per server)."""
    from corpus.generator import generate
    from corpus.lexicon import load_version

    lexicon = load_version(corpus)
    words: set[str] = set()
    for noun in lexicon.nouns:
        words |= {noun.en, noun.en_plural}
    for verb in lexicon.verbs:
        words |= {verb.en, verb.en_3sg, verb.en_past, verb.en_participle, verb.en_ing}
    words |= {a.en for a in lexicon.adjectives} | {n.en for n in lexicon.names}
    for grades in lexicon.grades:  # v2.1's comparatives and superlatives: "older", "oldest"
        words |= set(grades.en_comparative) | set(grades.en_superlative)
    for adverb in lexicon.adverbs:
        words |= set(adverb.en)
    for preposition in lexicon.prepositions:
        words |= set(preposition.en)
    for example in generate(2000, seed=0, lex=lexicon, version=corpus):
        words |= set(example.english)
    return frozenset(w.lower() for w in words)


def unseen_words(text: str, corpus: str = DEFAULT_CORPUS) -> tuple[str, ...]:
    """The words of `text` that the corpus never writes, in order, each once: words the
    translator never saw in training."""
    from corpus.parser import tokenize

    known = corpus_english_words(corpus)
    out: list[str] = []
    for word in tokenize(text):
        # numbers and punctuation are copied or written as they are, not learned as words
        if word[0].isalpha() and word.lower() not in known and word not in out:
            out.append(word)
    return tuple(out)
