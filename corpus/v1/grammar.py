"""Synchronous English->German grammar: sentences, translations, word alignments.

A sentence is first sampled as a small structured spec (`Clause` with `NP`s and
a `PP`), then realised *simultaneously* in both languages by `build`. While
realising, every English token gets an id and every German token records the
ids of the English tokens it translates, so the gold alignment falls out of
the derivation instead of being guessed afterwards.

`translate` goes the other way for a typed English sentence: a small
backtracking parser proposes specs, and a spec is accepted only if `build`
reproduces the input tokens exactly (so agreement, do-support etc. are checked
by the same code that generates the data).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from corpus.v1.lexicon import (
    ADJ_BY_EN,
    ADJECTIVES,
    ADVERB_BY_EN,
    ADVERBS,
    CONJUNCTIONS,
    CONTRACTIONS,
    HABEN,
    MODAL_BY_KEY,
    MODALS,
    NOUN_BY_EN,
    NOUNS,
    NUMBERS,
    POSSESSIVES,
    PREPOSITIONS,
    PRONOUN_BY_KEY,
    PRONOUNS,
    SEIN,
    VERB_BY_KEY,
    VERBS,
    Noun,
)

__all__ = [
    "NP",
    "PP",
    "Clause",
    "Example",
    "MAX_SENTENCE_TOKENS",
    "PHENOMENA",
    "build",
    "detokenize_german",
    "english_vocabulary",
    "generate",
    "german_vocabulary",
    "tokenize_english",
    "translate",
    "translations",
]

PHENOMENA: frozenset[str] = frozenset(
    """accusative dative_object ditransitive dative_preposition accusative_preposition
    contraction plural number pronoun pronoun_object possessive weak_noun mass_noun
    adjective_definite adjective_indefinite adjective_no_article
    present perfect_haben perfect_sein modal v2_adverb question
    negation_nicht negation_kein subordinate_dass subordinate_weil subordinate_wenn
    person_1sg person_2sg person_3sg person_1pl person_2pl person_3pl""".split()
)
PERSON_TAGS = ("person_1sg", "person_2sg", "person_3sg", "person_1pl", "person_2pl", "person_3pl")

# ------------------------------------------------------------------ the example


@dataclass(frozen=True)
class Example:
    english: tuple[str, ...]
    german: tuple[str, ...]
    alignment: tuple[tuple[int, ...], ...]  # per German token: indices into `english`
    phenomena: frozenset[str]

    @property
    def english_text(self) -> str:
        return _join(self.english)

    @property
    def german_text(self) -> str:
        return detokenize_german(self.german)


_PUNCT = {".", ",", "?", "!"}


def _join(tokens: Iterable[str]) -> str:
    out = ""
    for tok in tokens:
        out += tok if (tok in _PUNCT or not out) else " " + tok
    return out


def detokenize_german(tokens: Iterable[str]) -> str:
    """Orthographic German: capital first letter, punctuation attached, and the
    obligatory comma before a subordinate clause (dass/weil/wenn)."""
    toks = list(tokens)
    words: list[str] = []
    for i, tok in enumerate(toks):
        if i > 0 and tok in ("dass", "weil", "wenn") and toks[i - 1] not in _PUNCT:
            words.append(",")
        words.append(tok)
    text = _join(words)
    return text[:1].upper() + text[1:]


_CONTRACTIONS_EN = {
    "don't": "do not",
    "doesn't": "does not",
    "can't": "cannot",
    "haven't": "have not",
    "hasn't": "has not",
    "mustn't": "must not",
}


def tokenize_english(text: str) -> list[str]:
    """User input -> tokens in the generator's convention (lower case,
    punctuation split off, common negative contractions expanded)."""
    text = text.lower().replace("\u2019", "'")
    for short, long in _CONTRACTIONS_EN.items():
        text = re.sub(rf"\b{re.escape(short)}", long, text)
    text = re.sub(r"([.,?!])", r" \1 ", text)
    return text.split()


# ----------------------------------------------------------------------- specs


@dataclass(frozen=True)
class NP:
    """Noun phrase. Either `pronoun` (key of lexicon.PRONOUNS) or `noun`."""

    noun: str | None = None  # English singular, key of lexicon.NOUN_BY_EN
    det: str = "the"  # the | a | no | bare | number | poss
    plural: bool = False
    adjective: str | None = None
    number: str | None = None  # "one".."twelve" when det == "number"
    possessor: str | None = None  # pronoun key when det == "poss"
    pronoun: str | None = None


@dataclass(frozen=True)
class PP:
    prep: str  # key of lexicon.PREPOSITIONS (its English form)
    np: NP


@dataclass(frozen=True)
class Clause:
    subject: NP
    verb: str  # key of lexicon.VERB_BY_KEY
    obj: NP | None = None  # accusative object (the dative object for frame "dat")
    iobj: NP | None = None  # dative object of dat_acc verbs
    pp: PP | None = None
    tense: str = "present"  # present | perfect
    modal: str | None = None  # can | must | want (tense must be present)
    negated: bool = False
    question: bool = False
    adverb: str | None = None  # fronted adverb -> German verb-second inversion
    conj: str | None = None  # that | because | if | when
    sub: Clause | None = None  # subordinate clause introduced by `conj`


# ------------------------------------------------------------------- realising

DEF_ARTICLE = {
    "nom": {"m": "der", "f": "die", "n": "das", "pl": "die"},
    "acc": {"m": "den", "f": "die", "n": "das", "pl": "die"},
    "dat": {"m": "dem", "f": "der", "n": "dem", "pl": "den"},
}
# endings of ein/kein/mein... (the ein-words)
EIN_ENDING = {
    "nom": {"m": "", "f": "e", "n": "", "pl": "e"},
    "acc": {"m": "en", "f": "e", "n": "", "pl": "e"},
    "dat": {"m": "em", "f": "er", "n": "em", "pl": "en"},
}
# adjective endings: weak after der/die/das (and after ein-words in the plural)
WEAK = {
    "nom": {"m": "e", "f": "e", "n": "e", "pl": "en"},
    "acc": {"m": "en", "f": "e", "n": "e", "pl": "en"},
    "dat": {"m": "en", "f": "en", "n": "en", "pl": "en"},
}
# mixed: after ein-words in the singular (the article shows no gender, the adjective does)
MIXED = {
    "nom": {"m": "er", "f": "e", "n": "es"},
    "acc": {"m": "en", "f": "e", "n": "es"},
    "dat": {"m": "en", "f": "en", "n": "en"},
}
# strong plural: no article (bare plural, or after a number)
STRONG_PLURAL = {"nom": "e", "acc": "e", "dat": "en"}

DeTok = tuple[str, tuple[int, ...]]  # German word + ids of the English tokens it translates


class _Builder:
    """Hands out ids for English tokens; positions are fixed at the end."""

    def __init__(self) -> None:
        self.words: list[str] = []
        self.tags: set[str] = set()

    def en(self, *words: str) -> list[int]:
        ids = list(range(len(self.words), len(self.words) + len(words)))
        self.words.extend(words)
        return ids


@dataclass
class _Phrase:
    en: list[int] = field(default_factory=list)
    de: list[DeTok] = field(default_factory=list)


def _a_or_an(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _person(np: NP) -> int:
    if np.pronoun:
        return PRONOUN_BY_KEY[np.pronoun].person
    return 5 if np.plural else 2


def _np(b: _Builder, np: NP, case: str, kein_links: list[int] | None = None) -> _Phrase:
    """Realise a noun phrase in German `case`. `kein_links`: the clause is negated
    and this indefinite NP absorbs the negation ("not a dog" -> "keinen Hund")."""
    if np.pronoun:
        p = PRONOUN_BY_KEY[np.pronoun]
        ids = b.en(*(p.en_subject if case == "nom" else p.en_object))
        b.tags.add("pronoun")
        if case != "nom":
            b.tags.add("pronoun_object")
        return _Phrase(
            ids, [({"nom": p.de_nom, "acc": p.de_acc, "dat": p.de_dat}[case], tuple(ids))]
        )

    noun: Noun = NOUN_BY_EN[np.noun]  # type: ignore[index]
    g = "pl" if np.plural else noun.gender
    adj = ADJ_BY_EN[np.adjective] if np.adjective else None
    en_noun_word = noun.en_plural if np.plural else noun.en
    first_word = adj.en if adj else en_noun_word

    # English determiner and the German article it becomes
    det_ids: list[int] = []
    de_article: str | None = None
    declension = "strong"  # adjective declension selected by the article
    if np.det == "the":
        det_ids = b.en("the")
        de_article, declension = DEF_ARTICLE[case][g], "weak"
    elif np.det in ("a", "no", "poss") or (np.det == "number" and np.number == "one"):
        if np.det == "a":
            det_ids, stem = b.en(_a_or_an(first_word)), "ein"
        elif np.det == "no":
            det_ids, stem = b.en("no"), "kein"
            b.tags.add("negation_kein")
        elif np.det == "poss":
            owner = PRONOUN_BY_KEY[np.possessor]  # type: ignore[index]
            det_ids, stem = b.en(owner.en_possessive), owner.de_possessive  # type: ignore[arg-type]
            b.tags.add("possessive")
        else:
            det_ids, stem = b.en("one"), "ein"
            b.tags.add("number")
        if kein_links is not None and stem == "ein":
            stem = "kein"
        de_article = stem + EIN_ENDING[case][g]
        declension = "weak" if np.plural else "mixed"
    elif np.det == "number":
        det_ids = b.en(np.number)  # type: ignore[arg-type]
        de_article = NUMBERS[np.number]  # type: ignore[index]
        b.tags.add("number")
    elif np.det == "bare" and kein_links is not None:
        de_article, declension = "kein" + EIN_ENDING[case][g], "weak" if np.plural else "mixed"
    if kein_links is not None:
        b.tags.add("negation_kein")

    phrase = _Phrase(list(det_ids))
    if de_article:
        links = tuple(det_ids) + tuple(kein_links or ())
        phrase.de.append((de_article, tuple(sorted(links))))
    if adj:
        adj_ids = b.en(adj.en)
        phrase.en += adj_ids
        if declension == "weak":
            ending = WEAK[case][g]
        elif declension == "mixed":
            ending = MIXED[case][g]
        else:
            ending = STRONG_PLURAL[case]
        phrase.de.append((adj.de + ending, tuple(adj_ids)))
        if np.det == "the":
            b.tags.add("adjective_definite")
        elif declension == "strong":
            b.tags.add("adjective_no_article")
        else:  # after ein/kein/mein...: mixed (singular) or weak (plural)
            b.tags.add("adjective_indefinite")
    noun_ids = b.en(en_noun_word)
    phrase.en += noun_ids
    if np.plural:
        de_noun = noun.de_dative_plural if case == "dat" else noun.de_plural
        b.tags.add("plural")
    else:
        de_noun = noun.de if case == "nom" else noun.de_oblique
        if noun.weak and case != "nom":
            b.tags.add("weak_noun")
    if noun.mass:
        b.tags.add("mass_noun")
    phrase.de.append((de_noun, tuple(noun_ids)))
    return phrase


def _pp(b: _Builder, pp: PP) -> _Phrase:
    prep = PREPOSITIONS[pp.prep]
    prep_ids = b.en(prep.en)
    inner = _np(b, pp.np, prep.case)
    b.tags.add("dative_preposition" if prep.case == "dat" else "accusative_preposition")
    first_word, first_links = inner.de[0]
    contracted = CONTRACTIONS.get((prep.de, first_word))
    if pp.np.det == "the" and not pp.np.plural and contracted:
        b.tags.add("contraction")
        de = [(contracted, tuple(prep_ids) + first_links)] + inner.de[1:]
    else:
        de = [(prep.de, tuple(prep_ids))] + inner.de
    return _Phrase(prep_ids + inner.en, de)


@dataclass
class _VerbGroup:
    en_front: list[int]  # question: auxiliary before the subject
    en_rest: list[int]  # after the subject
    finite: DeTok
    nonfinite: DeTok | None  # participle / infinitive at the end of the clause
    neg_ids: list[int] | None  # English tokens that German "nicht"/"kein" translates


def _verb_group(b: _Builder, c: Clause, person: int) -> _VerbGroup:
    v = VERB_BY_KEY[c.verb]
    third = person == 2
    do = "does" if third else "do"
    front: list[int] = []
    rest: list[int] = []
    neg: list[int] | None = None
    if c.modal:
        m = MODAL_BY_KEY[c.modal]
        b.tags.add("modal")
        forms = m.de_negated_present if c.negated else m.de_present
        if c.modal == "want":
            # "wants to see" / "does not want to see" / "does he want to see?"
            if c.question:
                front = b.en(do)
                fin_ids = b.en("want")
                rest = fin_ids
            elif c.negated:
                rest = b.en(do)
                neg = b.en("not")
                fin_ids = b.en("want")
                rest += neg + fin_ids
            else:
                fin_ids = b.en(m.en_3sg if third else m.en)
                rest = list(fin_ids)
            rest += b.en("to")
        else:
            if c.modal == "can" and c.negated:
                fin_ids = b.en("cannot")
                neg = fin_ids
            else:
                fin_ids = b.en(m.en)
                if c.negated:
                    neg = b.en("not")
            if c.question:
                front = fin_ids
            else:
                rest = fin_ids + (neg if neg and neg != fin_ids else [])
        verb_ids = b.en(v.en)
        rest += verb_ids
        return _VerbGroup(
            front, rest, (forms[person], tuple(fin_ids)), (v.de_infinitive, tuple(verb_ids)), neg
        )
    if c.tense == "perfect":
        b.tags.add("perfect_sein" if v.aux == "sein" else "perfect_haben")
        aux_ids = b.en("has" if third else "have")
        if c.question:
            front = aux_ids
        else:
            rest = list(aux_ids)
        if c.negated:
            neg = b.en("not")
            rest += neg
        part_ids = b.en(v.en_participle)
        rest += part_ids
        aux_forms = SEIN if v.aux == "sein" else HABEN
        return _VerbGroup(
            front,
            rest,
            (aux_forms[person], tuple(aux_ids)),
            (v.de_participle, tuple(part_ids)),
            neg,
        )
    b.tags.add("present")
    if c.question:
        front = b.en(do)
        verb_ids = b.en(v.en)
        rest = verb_ids
    elif c.negated:
        rest = b.en(do)
        neg = b.en("not")
        verb_ids = b.en(v.en)
        rest += neg + verb_ids
    else:
        verb_ids = b.en(v.en_3sg if third else v.en)
        rest = list(verb_ids)
    return _VerbGroup(front, rest, (v.de_present[person], tuple(verb_ids)), None, neg)


def _kein_target(c: Clause) -> NP | None:
    """The object that turns into kein- under negation (if it is indefinite)."""
    if not c.negated:
        return None
    target = c.obj
    if target is not None and not target.pronoun and target.det in ("a", "bare"):
        return target
    return None


def _clause(b: _Builder, c: Clause, subordinate: bool) -> tuple[list[int], list[DeTok]]:
    """Realise one clause; returns (English ids in order, German tokens in order)."""
    v = VERB_BY_KEY[c.verb]
    person = _person(c.subject)
    b.tags.add(PERSON_TAGS[person])
    adv_ids: list[int] = []
    if c.adverb:
        adv_ids = b.en(c.adverb)
        b.tags.add("v2_adverb")
    subj = _np(b, c.subject, "nom")
    vg = _verb_group(b, c, person)
    target = _kein_target(c)

    # objects: English order "gives the man the book"; German middle field puts
    # pronouns first (accusative before dative), then dative, then accusative nouns.
    iobj = _np(b, c.iobj, "dat") if c.iobj else None
    obj_case = "dat" if v.frame == "dat" else "acc"
    obj = None
    if c.obj:
        obj = _np(b, c.obj, obj_case, kein_links=vg.neg_ids if c.obj is target else None)
    if v.frame == "dat":
        b.tags.add("dative_object")
    elif v.frame in ("acc", "dat_acc"):
        b.tags.add("accusative")
        if v.frame == "dat_acc":
            b.tags.update({"dative_object", "ditransitive"})
    pp = _pp(b, c.pp) if c.pp else None

    en: list[int] = vg.en_front + adv_ids + subj.en + vg.en_rest
    en += (iobj.en if iobj else []) + (obj.en if obj else []) + (pp.en if pp else [])

    pron_objs = [p for p, np in ((obj, c.obj), (iobj, c.iobj)) if p and np and np.pronoun]
    noun_objs = [p for p, np in ((iobj, c.iobj), (obj, c.obj)) if p and np and not np.pronoun]
    middle: list[DeTok] = [t for p in pron_objs + noun_objs for t in p.de]
    if c.negated and target is None:
        middle.append(("nicht", tuple(vg.neg_ids or ())))
        b.tags.add("negation_nicht")
    if pp:
        middle += pp.de
    tail = [vg.nonfinite] if vg.nonfinite else []

    if subordinate:  # verb-final; the conjunction is added by the caller
        de = subj.de + middle + tail + [vg.finite]
    elif c.question:
        b.tags.add("question")
        de = [vg.finite] + subj.de + middle + tail
    elif c.adverb:
        adv = ADVERB_BY_EN[c.adverb]
        de = [(adv.de, tuple(adv_ids)), vg.finite] + subj.de + middle + tail
    else:
        de = subj.de + [vg.finite] + middle + tail

    if c.sub is not None and c.conj:
        conj_ids = b.en(c.conj)
        b.tags.add(
            {"that": "subordinate_dass", "because": "subordinate_weil"}.get(
                c.conj, "subordinate_wenn"
            )
        )
        sub_en, sub_de = _clause(b, c.sub, subordinate=True)
        en += conj_ids + sub_en
        de += [(CONJUNCTIONS[c.conj], tuple(conj_ids))] + sub_de
    return en, de


def build(clauses: Clause | Sequence[Clause]) -> Example:
    """Realise one clause, or several main clauses joined by "and"/"und"."""
    if isinstance(clauses, Clause):
        clauses = [clauses]
    b = _Builder()
    en: list[int] = []
    de: list[DeTok] = []
    for i, c in enumerate(clauses):
        if i:
            and_ids = b.en("and")
            en += and_ids
            de.append(("und", tuple(and_ids)))
            b.tags.add("coordination")
        c_en, c_de = _clause(b, c, subordinate=False)
        en += c_en
        de += c_de
    punct = "?" if clauses[-1].question else "."
    p_ids = b.en(punct)
    en += p_ids
    de.append((punct, tuple(p_ids)))
    position = {tok_id: pos for pos, tok_id in enumerate(en)}
    return Example(
        english=tuple(b.words[i] for i in en),
        german=tuple(w for w, _ in de),
        alignment=tuple(tuple(sorted(position[i] for i in links)) for _, links in de),
        phenomena=frozenset(b.tags),
    )


# -------------------------------------------------------------------- sampling

_PERSON_CLASSES = {"person"}


def _weighted(rng: random.Random, options: dict[str, float]) -> str:
    keys = list(options)
    return rng.choices(keys, weights=[options[k] for k in keys])[0]


def _sample_np(
    rng: random.Random,
    classes: frozenset[str],
    role: str,
    allow_no: bool = False,
    avoid_pronoun: str | None = None,
    pronoun_p: float | None = None,
) -> NP:
    """role: "subject" | "object" | "pp"."""
    if pronoun_p is None:
        pronoun_p = {"subject": 0.4, "object": 0.15, "pp": 0.12}[role]
    if role == "pp" and "person" not in classes:
        pronoun_p = 0.0  # "in it" / "in ihm" for places reads badly
    if rng.random() < pronoun_p:
        if "person" in classes:
            keys = [p.key for p in PRONOUNS if p.key != "it"]
            if classes - _PERSON_CLASSES and role != "pp":
                keys.append("it")
        else:
            keys = ["it", "they"]
        return NP(pronoun=rng.choice([k for k in keys if k != avoid_pronoun]))
    candidates = [n for n in NOUNS if n.classes & classes]
    # the few drinks would otherwise drown among the countable nouns
    noun = rng.choices(candidates, weights=[4 if n.mass else 1 for n in candidates])[0]
    if noun.mass:
        dets = {"the": 0.5, "bare": 0.3, "poss": 0.2}
    elif role == "pp":  # "to the school", "in the park": mostly definite
        dets = {"the": 0.6, "a": 0.15, "poss": 0.12, "number": 0.05, "bare": 0.08}
    else:
        dets = {"the": 0.4, "a": 0.22, "poss": 0.1, "number": 0.1, "bare": 0.08}
    if allow_no:
        dets["no"] = 0.06
    det = _weighted(rng, dets)
    plural, number, possessor = False, None, None
    if det in ("the", "poss", "no") and not noun.mass:
        plural = rng.random() < (0.2 if role == "pp" else 0.3)
    elif det == "bare" and not noun.mass:
        plural = True
    elif det == "number":
        number = rng.choice(list(NUMBERS))
        plural = number != "one"
    if det == "poss":
        possessor = rng.choice(POSSESSIVES).key
    adjective = None
    if not noun.mass and rng.random() < 0.3:
        adjective = rng.choice([a for a in ADJECTIVES if a.classes & noun.classes]).en
    return NP(noun.en, det, plural, adjective, number, possessor)


_FRAME_WEIGHTS = {"acc": 0.42, "dat": 0.09, "dat_acc": 0.12, "intrans": 0.27, "that": 0.10}
_VERBS_BY_FRAME = {f: [v for v in VERBS if v.frame == f] for f in _FRAME_WEIGHTS}


def _sample_clause(rng: random.Random, main: bool, coordinated: bool = False) -> Clause:
    frame = _weighted(
        rng,
        _FRAME_WEIGHTS
        if main and not coordinated
        else {k: w for k, w in _FRAME_WEIGHTS.items() if k != "that"},
    )
    v = rng.choice(_VERBS_BY_FRAME[frame])
    r = rng.random()
    tense, modal = "present", None
    if r < 0.27:
        tense = "perfect"
    elif r < 0.5:
        modal = rng.choice(MODALS).key
    negated = rng.random() < 0.2
    question = main and not coordinated and frame != "that" and rng.random() < 0.14
    adverb = None
    if main and not question and rng.random() < 0.16:
        kind = "modal" if modal else tense
        adverb = rng.choice([a for a in ADVERBS if kind in a.tenses]).en
    if question:
        negated = False

    subject = _sample_np(rng, v.subject, "subject")
    avoid = subject.pronoun
    obj = iobj = None
    allow_no = not negated and not question
    if frame in ("acc", "dat", "dat_acc"):
        obj = _sample_np(
            rng,
            v.obj,
            "object",
            allow_no=allow_no,
            avoid_pronoun=avoid,
            pronoun_p=0.0 if frame == "dat_acc" else None,
        )
        if negated and obj.det in ("number", "no"):
            obj = replace(obj, det="the", number=None)
    if frame == "dat_acc":
        iobj = _sample_np(rng, v.iobj, "object", avoid_pronoun=avoid)
    pp = None
    pp_p = 0.6 if frame == "intrans" else 0.22
    if v.preps and rng.random() < pp_p:
        prep = rng.choice(v.preps)
        pp = PP(prep, _sample_np(rng, PREPOSITIONS[prep].classes, "pp", avoid_pronoun=avoid))

    conj = sub = None
    if main and not question and not coordinated:
        if frame == "that":
            conj = "that"
        elif rng.random() < 0.14:
            conj = rng.choice(["because", "because", "if", "when"])
        if conj:
            sub = _sample_clause(rng, main=False)
            if frame != "that":
                pp = None  # keep sentences with two clauses moderately long
    return Clause(subject, v.key, obj, iobj, pp, tense, modal, negated, question, adverb, conj, sub)


# The longest English sentence of a single-clause example, so of any training sentence.
MAX_SENTENCE_TOKENS = 20


def generate(n: int, seed: int, max_clauses: int = 1, longer_than: int = 0) -> list[Example]:
    """`n` examples, deterministic in `seed`. With max_clauses=k > 1 every example
    joins k main clauses with "and" (a length-generalisation test set); `longer_than`
    keeps only examples with more English tokens than that."""
    rng = random.Random(seed)
    max_len = MAX_SENTENCE_TOKENS if max_clauses == 1 else 16 * max_clauses
    out: list[Example] = []
    while len(out) < n:
        if max_clauses == 1:
            ex = build(_sample_clause(rng, main=True))
        else:
            ex = build(
                [_sample_clause(rng, main=True, coordinated=True) for _ in range(max_clauses)]
            )
        if longer_than < len(ex.english) <= max_len:
            out.append(ex)
    return out


# ------------------------------------------------------------------ vocabulary


def english_vocabulary() -> list[str]:
    words = {".", "?", "the", "a", "an", "no", "not", "does", "do", "has", "have", "to", "and"}
    words |= {"cannot", "want", "wants"} | {m.en for m in MODALS}
    for n in NOUNS:
        words |= {n.en, n.en_plural}
    words |= {a.en for a in ADJECTIVES} | {a.en for a in ADVERBS}
    for v in VERBS:
        words |= {v.en, v.en_3sg, v.en_participle}
    for p in PRONOUNS:
        words |= set(p.en_subject) | set(p.en_object) | {p.en_possessive or "the"}
    words |= set(PREPOSITIONS) | set(CONJUNCTIONS) | set(NUMBERS)
    return sorted(words)


def german_vocabulary() -> list[str]:
    words = {".", "?", "nicht", "und"} | set(HABEN) | set(SEIN)
    cases = ("nom", "acc", "dat")
    stems = {"ein", "kein"} | {p.de_possessive for p in POSSESSIVES}
    for case in cases:
        words |= set(DEF_ARTICLE[case].values())
        words |= {s + e for s in stems for e in EIN_ENDING[case].values()}  # type: ignore[operator]
    for n in NOUNS:
        words |= {n.de, n.de_plural, n.de_dative_plural, n.de_oblique}
    endings = {e for t in (WEAK, MIXED) for c in t.values() for e in c.values()}
    endings |= set(STRONG_PLURAL.values())
    words |= {a.de + e for a in ADJECTIVES for e in endings}
    for v in VERBS:
        words |= set(v.de_present) | {v.de_infinitive, v.de_participle}
    for m in MODALS:
        words |= set(m.de_present) | set(m.de_negated_present)
    for p in PRONOUNS:
        words |= {p.de_nom, p.de_acc, p.de_dat}
    words |= {p.de for p in PREPOSITIONS.values()} | set(CONTRACTIONS.values())
    words |= {a.de for a in ADVERBS} | set(CONJUNCTIONS.values()) | set(NUMBERS.values())
    return sorted(words)


# ------------------------------------------------------------------ translate


def translations(english_tokens: Sequence[str] | str) -> list[Example]:
    """All distinct derivations of an English sentence (several for ambiguous
    input such as "the sheep", singular or plural), in parser order."""
    toks = (
        tokenize_english(english_tokens)
        if isinstance(english_tokens, str)
        else list(english_tokens)
    )
    target = tuple(toks)
    found: list[Example] = []
    for spec in _parse_sentence(toks):
        ex = build(spec)
        if ex.english == target and ex not in found:
            found.append(ex)
    return found


def translate(english_tokens: Sequence[str] | str) -> Example | None:
    """Reference translation of an English sentence the grammar can generate
    (tokens or raw text); None if the grammar does not cover it."""
    toks = (
        tokenize_english(english_tokens)
        if isinstance(english_tokens, str)
        else list(english_tokens)
    )
    target = tuple(toks)
    for spec in _parse_sentence(toks):
        ex = build(spec)
        if ex.english == target:
            return ex
    return None


def _verb_forms() -> dict[str, list[tuple[str, str]]]:
    forms: dict[str, list[tuple[str, str]]] = {}
    for v in VERBS:
        for kind, word in (("base", v.en), ("3sg", v.en_3sg), ("part", v.en_participle)):
            forms.setdefault(word, []).append((v.key, kind))
    return forms


_VERB_FORMS = _verb_forms()
_POSSESSOR_BY_EN = {p.en_possessive: p.key for p in POSSESSIVES}
_NOUN_FORMS: dict[str, list[tuple[str, bool]]] = {}
for _n in NOUNS:
    _NOUN_FORMS.setdefault(_n.en, []).append((_n.en, False))
    if not _n.mass:
        _NOUN_FORMS.setdefault(_n.en_plural, []).append((_n.en, True))


class _Parser:
    """Permissive backtracking parser over the grammar's English side. It only
    proposes specs; `translate` keeps the one `build` reproduces exactly."""

    def __init__(self, toks: Sequence[str]) -> None:
        self.t = list(toks)

    def at(self, i: int) -> str | None:
        return self.t[i] if i < len(self.t) else None

    def np(self, i: int) -> Iterator[tuple[NP, int]]:
        for p in PRONOUNS:
            for form in {p.en_subject, p.en_object}:
                if tuple(self.t[i : i + len(form)]) == form:
                    yield NP(pronoun=p.key), i + len(form)
        tok = self.at(i)
        det, number, possessor, j = "bare", None, None, i
        if tok in ("the", "a", "an", "no"):
            det, j = ("a" if tok == "an" else tok), i + 1
        elif tok in NUMBERS:
            det, number, j = "number", tok, i + 1
        elif tok in _POSSESSOR_BY_EN:
            det, possessor, j = "poss", _POSSESSOR_BY_EN[tok], i + 1
        for adjective, k in ((None, j), (self.at(j), j + 1)):
            if adjective is not None and adjective not in ADJ_BY_EN:
                continue
            for noun, plural in _NOUN_FORMS.get(self.at(k) or "", []):
                yield NP(noun, det, plural, adjective, number, possessor), k + 1

    def objects(self, frame: str, i: int) -> Iterator[tuple[NP | None, NP | None, int]]:
        if frame in ("intrans", "that"):
            yield None, None, i
        elif frame == "dat_acc":
            for iobj, j in self.np(i):
                for obj, k in self.np(j):
                    yield obj, iobj, k
        else:
            for obj, j in self.np(i):
                yield obj, None, j

    def verbs(self, i: int, kinds: tuple[str, ...]) -> Iterator[tuple[str, int]]:
        for key, kind in _VERB_FORMS.get(self.at(i) or "", []):
            if kind in kinds:
                yield key, i + 1

    def verb_group(self, i: int) -> Iterator[tuple[dict, int]]:
        """Declarative verb group -> (Clause fields, end)."""
        tok, nxt = self.at(i), self.at(i + 1)
        if tok in ("does", "do") and nxt == "not":
            if self.t[i + 2 : i + 4] == ["want", "to"]:
                for key, j in self.verbs(i + 4, ("base",)):
                    yield {"verb": key, "modal": "want", "negated": True}, j
            for key, j in self.verbs(i + 2, ("base",)):
                yield {"verb": key, "negated": True}, j
        if tok in ("has", "have"):
            neg = nxt == "not"
            for key, j in self.verbs(i + 1 + neg, ("part",)):
                yield {"verb": key, "tense": "perfect", "negated": neg}, j
        if tok in ("can", "must", "cannot"):
            neg = tok == "cannot" or nxt == "not"
            start = i + 1 + (neg and tok != "cannot")
            for key, j in self.verbs(start, ("base",)):
                yield {"verb": key, "modal": "must" if tok == "must" else "can", "negated": neg}, j
        if tok in ("wants", "want") and nxt == "to":
            for key, j in self.verbs(i + 2, ("base",)):
                yield {"verb": key, "modal": "want"}, j
        for key, j in self.verbs(i, ("base", "3sg")):
            yield {"verb": key}, j

    def rest(self, fields: dict, i: int, main: bool) -> Iterator[tuple[dict, int]]:
        """Objects, optional PP, optional subordinate clause."""
        frame = VERB_BY_KEY[fields["verb"]].frame
        for obj, iobj, j in self.objects(frame, i):
            base = dict(fields, obj=obj, iobj=iobj)
            options = [(base, j)]
            if self.at(j) in PREPOSITIONS:
                options += [(dict(base, pp=PP(self.at(j), np)), k) for np, k in self.np(j + 1)]  # type: ignore[arg-type]
            for f, k in options:
                conj = self.at(k)
                wants_that = frame == "that"
                if main and conj in CONJUNCTIONS and (conj == "that") == wants_that:
                    for sub, m in self.clause(k + 1, main=False):
                        yield dict(f, conj=conj, sub=sub), m
                elif not wants_that:
                    yield f, k

    def clause(self, i: int, main: bool) -> Iterator[tuple[Clause, int]]:
        starts: list[tuple[str | None, int]] = [(None, i)]
        if main and self.at(i) in ADVERB_BY_EN:
            starts.append((self.at(i), i + 1))
        for adverb, j in starts:
            for subj, k in self.np(j):
                for fields, m in self.verb_group(k):
                    for f, end in self.rest(fields, m, main):
                        yield Clause(subject=subj, adverb=adverb, **f), end

    def question(self, i: int) -> Iterator[tuple[Clause, int]]:
        aux = self.at(i)
        if aux not in ("does", "do", "has", "have", "can", "must"):
            return
        for subj, j in self.np(i + 1):
            groups: list[tuple[dict, int]] = []
            if aux in ("does", "do"):
                if self.t[j : j + 2] == ["want", "to"]:
                    groups += [
                        ({"verb": k, "modal": "want"}, e) for k, e in self.verbs(j + 2, ("base",))
                    ]
                groups += [({"verb": k}, e) for k, e in self.verbs(j, ("base",))]
            elif aux in ("has", "have"):
                groups += [
                    ({"verb": k, "tense": "perfect"}, e) for k, e in self.verbs(j, ("part",))
                ]
            else:
                groups += [({"verb": k, "modal": aux}, e) for k, e in self.verbs(j, ("base",))]
            for fields, k in groups:
                for f, end in self.rest(fields, k, main=False):
                    yield Clause(subject=subj, question=True, **f), end


def _parse_sentence(toks: list[str]) -> Iterator[Clause | list[Clause]]:
    if not toks or toks[-1] not in (".", "?"):
        return
    p = _Parser(toks[:-1])
    n = len(toks) - 1
    if toks[-1] == "?":
        yield from (c for c, end in p.question(0) if end == n)
        return

    # one main clause, or main clauses joined by "and"
    def chain(i: int) -> Iterator[list[Clause]]:
        for c, end in p.clause(i, main=True):
            if end == n:
                yield [c]
            elif p.at(end) == "and":
                for more in chain(end + 1):
                    yield [c, *more]

    yield from chain(0)
