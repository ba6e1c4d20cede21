"""What corpus v2 holds: lexicon sizes, coverage of the most frequent English words, phenomenon
counts, sentence lengths and generation speed.

    python -m corpus.report [--sample 5000] [--seed 1]

Needs `wordfreq` (a test requirement) for the coverage figures.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

from corpus import lexicon as lx
from corpus.generator import generate


def lexicon_sizes(lex: lx.Lexicon) -> dict[str, int]:
    return {
        "nouns": len(lex.nouns),
        "verbs": len(lex.verbs),
        "adjectives": len(lex.adjectives),
        "adverbs": len(lex.adverbs),
        "prepositions": len(lex.prepositions),
        "names": len(lex.names),
        "pronouns": len(lx.PRONOUNS),
        "numbers (words)": len(lx.NUMBER_WORDS),
    }


def english_forms(lex: lx.Lexicon) -> dict[str, set[str]]:
    """Every English word form the lexicon can write, by word class."""
    forms: dict[str, set[str]] = {
        "noun": {w.lower() for n in lex.nouns for w in (n.en, n.en_plural)},
        "verb": {
            w.lower()
            for v in lex.verbs
            for w in (v.en, v.en_3sg, v.en_past, v.en_participle, v.en_ing)
        },
        "adjective": {a.en.lower() for a in lex.adjectives},
        "adverb": {" ".join(a.en).lower() for a in lex.adverbs},
        "preposition": {" ".join(p.en).lower() for p in lex.prepositions},
        "name": {n.en.lower() for n in lex.names},
    }
    closed = {"the", "a", "an", "no", "this", "these", "not", "and", "but", "or", "there"}
    closed |= {"be", "am", "is", "are", "was", "were", "been", "do", "does", "did", "will"}
    closed |= {"has", "have", "can", "cannot", "must", "want", "wants", "to", "please", "very"}
    closed |= {"too", "who", "whom", "what", "which", "that", "where", "when", "why", "how"}
    closed |= set(lx.CONJUNCTIONS) | set(lx.NUMBER_WORDS)
    for p in lx.PRONOUNS:
        closed |= {p.en_subject.lower(), p.en_object.lower(), p.en_possessive}
    forms["function word"] = closed - {""}
    return forms


def frequent_word_coverage(lex: lx.Lexicon, top: int = 2000) -> tuple[float, dict[str, int]]:
    """Share of wordfreq's `top` most frequent English words the lexicon can write, and how
    many of them each word class covers."""
    from wordfreq import top_n_list

    words = top_n_list("en", top)
    forms = english_forms(lex)
    by_class = Counter()
    covered = 0
    for w in words:
        classes = [c for c, fs in forms.items() if w in fs]
        if classes:
            covered += 1
            by_class[classes[0]] += 1
    return covered / len(words), dict(by_class)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m corpus.report", description=__doc__.split("\n")[0])
    p.add_argument("--sample", type=int, default=5000)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    lex = lx.load()
    print("lexicon:", lexicon_sizes(lex))
    share, by_class = frequent_word_coverage(lex)
    print(f"wordfreq top 2000 English words the lexicon writes: {share:.1%}", by_class)
    started = time.perf_counter()
    examples = generate(args.sample, seed=args.seed, lex=lex)
    seconds = time.perf_counter() - started
    print(
        f"generated {len(examples)} examples in {seconds:.1f} s "
        f"({len(examples) / seconds:.0f} a second, with the parser's check)"
    )
    tags = Counter(t for ex in examples for t in ex.phenomena)
    print("phenomena (examples with the tag):")
    for tag, n in sorted(tags.items()):
        print(f"  {tag:28s} {n:6d}  {n / len(examples):6.1%}")
    lengths = [len(ex.english) for ex in examples]
    de_lengths = [len(ex.german) for ex in examples]
    q = statistics.quantiles(lengths, n=10)
    print(
        f"English tokens: median {statistics.median(lengths)}, mean {statistics.mean(lengths):.1f}, "
        f"10th-90th percentile {q[0]:.0f}-{q[-1]:.0f}, max {max(lengths)}; "
        f"German median {statistics.median(de_lengths)}"
    )
    hist = Counter(min(n // 4 * 4, 28) for n in lengths)
    print("length histogram:", {f"{k}-{k + 3}": hist[k] for k in sorted(hist)})


if __name__ == "__main__":
    main()
