"""Synchronous English->German grammar of corpus v2: specs, and their realisation in both
languages at once with gold word alignments and coreference links.

A sentence is a small structured spec (`Sentence` of `Clause`s of `NP`s ...). `build` realises
it: every English token gets an id as it is written, and every German token records the ids of
the English tokens it translates, so the word alignment falls out of the derivation. A
third-person pronoun in a second clause that stands for a noun phrase of the first clause
carries `ref` ("subject" or "object"); its German form takes that noun's grammatical gender
(der Hund -> er, die Straße -> sie, das Tier -> es), and the link is recorded.

German word order follows the topological fields: Vorfeld, finite verb (verb second),
middle field (subject when inverted, pronoun objects, time adverb, dative, accusative, nicht,
prepositional object / predicative / adverbial), right bracket (infinitive, participle,
separable prefix); subordinate and relative clauses put the finite verb last.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from corpus import lexicon as lx
from corpus.lexicon import Lexicon

# ---------------------------------------------------------------------- specs


@dataclass(frozen=True)
class NP:
    """A noun phrase: a noun with determiner, a pronoun, a name, a question word, or two noun
    phrases joined by "and"."""

    noun: str | None = None
    det: str = (
        "the"  # the | a | no | bare | number | digits | poss | this | many | any | each | every
    )
    plural: bool = False
    adjective: str | None = None
    number: str | None = None  # "two" or "3"
    possessor: str | None = None  # pronoun key
    pronoun: str | None = None  # key of lexicon.PRONOUNS
    ref: str | None = None  # a pronoun's antecedent in the first clause: subject | object
    name: str | None = None
    wh: str | None = None  # who | what
    relative: Relative | None = None
    coord: tuple[NP, NP] | None = None
    female: bool = False  # v2.1: a person noun in its feminine form (the teacher = die Lehrerin)
    indefinite: str | None = None  # v2.1: nothing | nobody | something | somebody | anything ...
    owner: NP | None = None  # v2.1: "the doctor's car" (det stays "the": das Auto des Arztes)
    grade: str | None = None  # v2.1: the adjective's comparative | superlative (das größte Tier)
    called: str | None = None  # v2.1: a person's name after the noun (mein Freund Peter)


@dataclass(frozen=True)
class Relative:
    pronoun: str  # who | whom | which | that
    clause: Clause  # its `gap` names the role the head noun plays in it


@dataclass(frozen=True)
class PP:
    prep: str  # key of the preposition (its English words)
    np: NP


@dataclass(frozen=True)
class Complement:
    """What follows the copula: an adjective (with very/too), a noun phrase, or a place."""

    adjective: str | None = None
    degree: str | None = None  # very | too
    np: NP | None = None
    pp: PP | None = None
    age: str | None = None  # v2.1: "ten years old" = "zehn Jahre alt" (a number word or digits)
    than: NP | None = None  # v2.1: degree "comparative" (bigger than) or "equal" (as big as)


@dataclass(frozen=True)
class Clause:
    subject: NP | None  # None in an imperative and in a relative clause's subject gap
    verb: str | None = None  # None: the copula (with `complement`) or "there is" (`there`)
    obj: NP | None = None  # accusative object, dative for frame dat, or prepositional object
    iobj: NP | None = None  # dative object of dat_acc verbs
    to_dative: bool = False  # v2.1: "gives the book to the man", the dative after the object
    complement: Complement | None = None
    there: NP | None = None  # "there is" + this noun phrase
    pp: PP | None = None
    tense: str = "present"  # present | past | perfect | pluperfect | progressive | future
    modal: str | None = None  # can | must | want | have (to) (present); "could" is can + past
    negated: bool = False
    contracted: bool = False  # "doesn't" instead of "does not"
    question: bool = False
    wh: str | None = None  # where | when | why | how (who/what are NPs)
    adverb: str | None = None
    adverb_front: bool = False
    # v2.1, beside `adverb`: where a verb of motion goes (an adverb of kind goal: home), or
    # where the clause happens (of kind place: at home), as in "Then she went home."
    place: str | None = None
    named: str | None = None  # v2.1: "my name is" + this name (subject: the owner); "what"
    imperative: bool = False
    please: bool = False
    gap: str | None = None  # in a relative clause: subject | object


@dataclass(frozen=True)
class Sentence:
    clauses: tuple[Clause, ...]  # one main clause, or two joined by a coordinator
    coordinator: str | None = None  # and | but | or
    conj: str | None = None  # a subordinate clause joined to the (single) main clause
    sub: Clause | None = None
    sub_first: bool = False
    punct: str = "."
    that_omitted: bool = False  # v2.1: "He says the water is cold." (German: ", dass")
    phrase: str | None = None  # v2.1: a set phrase, the whole sentence or before a comma


@dataclass(frozen=True)
class Coreference:
    pronoun: int  # English token index
    antecedent: tuple[int, ...]  # English token indices of the noun phrase
    german_pronoun: int  # German token index


@dataclass(frozen=True)
class Example:
    english: tuple[str, ...]
    german: tuple[str, ...]
    alignment: tuple[tuple[int, ...], ...]  # per German token: indices into `english`
    coreference: tuple[Coreference, ...]
    phenomena: frozenset[str]

    @property
    def english_text(self) -> str:
        return join_tokens(self.english)

    @property
    def german_text(self) -> str:
        return join_tokens(self.german)


_PUNCT = {".", ",", "?", "!"}


def join_tokens(tokens: Sequence[str]) -> str:
    out = ""
    for tok in tokens:
        out += tok if (tok in _PUNCT or not out) else " " + tok
    return out


# ------------------------------------------------------------------ realising

DeTok = tuple[str, tuple[int, ...]]  # German word + ids of the English tokens it translates


class _Builder:
    def __init__(self, lex: Lexicon) -> None:
        self.lex = lex
        self.words: list[str] = []
        self.tags: set[str] = set()
        self.corefs: list[tuple[int, tuple[int, ...], int]] = []  # en id, ante ids, de marker
        self.antecedents: dict[str, _Ante] = {}
        self.roles: dict[str, _Ante | None] = {}  # the last clause's subject and object
        self.neg: list[int] | None = None  # the verb group's negation tokens
        self.marker = 0

    def en(self, *words: str) -> list[int]:
        ids = list(range(len(self.words), len(self.words) + len(words)))
        self.words.extend(words)
        return ids


@dataclass(frozen=True)
class _Ante:
    gender: str  # m | f | n | pl
    ids: tuple[int, ...]


@dataclass
class _Phrase:
    en: list[int] = field(default_factory=list)
    de: list[DeTok] = field(default_factory=list)
    gender: str = "n"  # German gender of the head, or "pl"
    person: int = 2


def np_gender(lex: Lexicon, np: NP) -> str:
    """German gender of a noun phrase's head ("pl" for plurals), as its pronoun shows it."""
    if np.coord or np.plural:
        return "pl"
    if np.name:
        name = lex.name(np.name)
        return name.sex if name.kind == "person" else "n"
    if np.noun:
        return "f" if np.female else lex.noun(np.noun).gender
    if np.pronoun:
        return {"he": "m", "she": "f", "it": "n"}.get(np.pronoun, "pl")
    return "m"


def _person(np: NP | None) -> int:
    if np is None:
        return 2
    if np.pronoun:
        return lx.PRONOUN_BY_KEY[np.pronoun].person
    return 5 if (np.plural or np.coord) else 2


# English picks "a" or "an" by the sound: "a user", "a university", "an hour", "an honest man".
# v2 picked by the letter ("an user") and stays as the shipped model read it (test_v2_identity).
_SOUNDED_YOU = ("uni", "use", "usu", "uti", "eu", "one", "once")
_SILENT_H = ("hour", "honest", "honour", "honor", "heir")


def _a_or_an(word: str, by_sound: bool) -> str:
    w = word.lower()
    # the exceptions sound the other way from their first letter
    vowel_sound = (w[0] in "aeiou") != (by_sound and w.startswith(_SOUNDED_YOU + _SILENT_H))
    return "an" if vowel_sound else "a"


def _np(
    b: _Builder, np: NP, case: str, kein: list[int] | None = None, en_subject: bool = False
) -> _Phrase:
    """Realise a noun phrase in German `case`. `kein`: the clause is negated and this
    indefinite noun phrase absorbs the negation ("not a dog" -> "keinen Hund"). `en_subject`:
    an English subject whatever the German case (v2.1: "I am cold" = "Mir ist kalt")."""
    lex = b.lex
    if np.coord:
        left = _np(b, np.coord[0], case)
        and_ids = b.en("and")
        right = _np(b, np.coord[1], case)
        b.tags.add("np_coordination")
        return _Phrase(
            left.en + and_ids + right.en, left.de + [("und", tuple(and_ids))] + right.de, "pl", 5
        )
    if np.indefinite:
        return _indefinite(b, np, case, kein)
    if np.wh:
        ids = b.en(np.wh)
        de = {"who": {"nom": "wer", "acc": "wen", "dat": "wem"}, "what": {"nom": "was"}}[np.wh]
        return _Phrase(ids, [(de.get(case, "was"), tuple(ids))])
    if np.pronoun:
        p = lx.PRONOUN_BY_KEY[np.pronoun]
        ids = b.en(*(p.en_subject if case == "nom" or en_subject else p.en_object).split())
        b.tags.add("pronoun" if case == "nom" else "pronoun_object")
        forms = {"nom": p.de_nom, "acc": p.de_acc, "dat": p.de_dat}
        gender = np_gender(lex, np)
        if np.ref is not None:
            ante = b.antecedents[np.ref]
            gender = ante.gender
            forms = dict(zip(("nom", "acc", "dat"), lx.PERSONAL_3RD[gender], strict=True))
            b.tags.add("pronoun_coref")
            b.corefs.append((ids[0], ante.ids, b.marker))
            word = (forms[case], (*ids, -1 - b.marker))  # marker: finds the German index later
            b.marker += 1
            return _Phrase(ids, [word], gender, p.person)
        return _Phrase(ids, [(forms[case], tuple(ids))], gender, p.person)
    if np.name:
        name = lex.name(np.name)
        ids = b.en(name.en)
        b.tags.add({"person": "name_person", "language": "language"}.get(name.kind, "name_place"))
        phrase = _Phrase(ids, [(name.de, tuple(ids))], np_gender(lex, np))
        return _with_relative(b, np, phrase)

    if np.owner is not None:
        return _saxon(b, np, case)
    noun = lex.noun(np.noun)  # type: ignore[arg-type]
    if np.female:
        female = lex.feminine_of(noun.en)
        if female is None:
            raise KeyError(f"{noun.en}: no feminine form")
        noun = female
        b.tags.add("feminine_profession")
    g = "pl" if np.plural else noun.gender
    adj = lex.adjective(np.adjective) if np.adjective else None
    en_noun = noun.en_plural if np.plural else noun.en
    adj_words, adj_stem = ((adj.en,), adj.de_stem) if adj else ((), "")
    if adj and np.grade:  # v2.1: "the biggest animal" = "das größte Tier"
        grades = lex.grades_of(adj.en)
        if np.grade == "comparative":
            adj_words, adj_stem = grades.en_comparative, grades.de_comparative
        else:
            adj_words, adj_stem = grades.en_superlative, grades.de_superlative
        b.tags.add(f"adjective_{np.grade}")
    first_word = adj_words[0] if adj else en_noun

    det_ids: list[int] = []
    article: str | None = None
    declension = "strong"
    if np.det == "the":
        det_ids = b.en("the")
        article, declension = lx.DEF_ARTICLE[case][g], "weak"
    elif np.det == "this":
        det_ids = b.en("these" if np.plural else "this")
        article, declension = "dies" + lx.DER_ENDING[case][g], "weak"
        b.tags.add("demonstrative")
    elif np.det in ("each", "every"):  # v2.1: "each word" = "jedes Wort", declined as dieser
        det_ids = b.en(np.det)
        article, declension = "jed" + lx.DER_ENDING[case][g], "weak"
        b.tags.add("quantifier_each")
    elif np.det in ("a", "no", "poss") or (np.det == "number" and np.number == "one"):
        if np.det == "a":
            det_ids, stem = b.en(_a_or_an(first_word, b.lex.version != "v2")), "ein"
        elif np.det == "no":
            det_ids, stem = b.en("no"), "kein"
            b.tags.add("negation_kein")
        elif np.det == "poss":
            owner = lx.PRONOUN_BY_KEY[np.possessor]  # type: ignore[index]
            det_ids, stem = b.en(owner.en_possessive), owner.de_possessive
            b.tags.add("possessive")
        else:
            det_ids, stem = b.en("one"), "ein"
            b.tags.add("number")
        if kein is not None and stem == "ein":
            stem = "kein"
        article = stem + lx.EIN_ENDING[case][g]
        declension = "weak" if np.plural else "mixed"
    elif np.det == "number":
        det_ids = b.en(np.number)  # type: ignore[arg-type]
        article = lx.ALL_NUMBER_WORDS[np.number]  # type: ignore[index]
        b.tags.add("number")
    elif np.det == "digits":
        det_ids = b.en(np.number)  # type: ignore[arg-type]
        article = np.number
        b.tags.add("number_digits")
    elif np.det == "many":
        det_ids = b.en("many")
        article = "viel" + lx.STRONG[case]["pl"]
        b.tags.add("quantifier")
    elif np.det == "any" and kein is not None:  # "weren't any birds" = keine Vögel
        det_ids = b.en("any")
        article, declension = "kein" + lx.EIN_ENDING[case][g], "weak" if np.plural else "mixed"
    elif np.det == "bare" and kein is not None:
        article, declension = "kein" + lx.EIN_ENDING[case][g], "weak" if np.plural else "mixed"
    if kein is not None:
        b.tags.add("negation_kein")

    phrase = _Phrase(list(det_ids), gender=g, person=5 if np.plural else 2)
    if article:
        links = tuple(sorted(set(det_ids) | set(kein or ())))
        phrase.de.append((article, links))
    if adj:
        adj_ids = b.en(*adj_words)
        phrase.en += adj_ids
        table = {"weak": lx.WEAK, "mixed": lx.MIXED, "strong": lx.STRONG}[declension]
        phrase.de.append((adj_stem + table[case][g], tuple(adj_ids)))
        b.tags.add(
            {"weak": "adjective_definite", "mixed": "adjective_indefinite"}.get(
                declension, "adjective_no_article"
            )
        )
    noun_ids = b.en(en_noun)
    phrase.en += noun_ids
    if np.plural:
        de_noun = noun.de_dative_plural if case == "dat" else noun.de_plural
        b.tags.add("plural")
    elif case == "gen":
        de_noun = noun.de_genitive
    else:
        de_noun = noun.de if case == "nom" else noun.de_oblique
        if de_noun != noun.de:
            b.tags.add("weak_noun")
    if noun.mass:
        b.tags.add("mass_noun")
    phrase.de.append((de_noun, tuple(noun_ids)))
    if np.called:  # "This is my friend Peter." = "Das ist mein Freund Peter."
        called = lex.name(np.called)
        name_ids = b.en(called.en)
        phrase.en += name_ids
        phrase.de.append((called.de, tuple(name_ids)))
        b.tags.add("apposition")
    return _with_relative(b, np, phrase)


def _saxon(b: _Builder, np: NP, case: str) -> _Phrase:
    """v2.1: the possessive 's. A name stays in front with -s ("Anna's brother" = "Annas
    Bruder", "Thomas's car" = "Thomas' Auto"; the adjective then strong: "Annas neues Auto"); any
    other owner follows in the genitive ("the doctor's car" = "das Auto des Arztes"), and the
    head's article says the definiteness that "'s" gives it."""
    lex = b.lex
    owner = np.owner
    assert owner is not None
    noun = lex.noun(np.noun)  # type: ignore[arg-type]
    g = "pl" if np.plural else noun.gender
    if owner.name:
        who = lex.name(owner.name)
        owner_ids = b.en(who.en + "'s")
        ending = "'" if who.de[-1] in "sxzß" else "s"
        owner_de: list[DeTok] = [(who.de + ending, tuple(owner_ids))]
        b.tags.add("possessive_s_name")
        article: list[DeTok] = []
        declension = "strong"
        owner_en, mark = owner_ids, owner_ids
    else:
        phrase = _np(b, owner, "gen")
        # "the doctor's", "the children's", "the students'": the token the tokenizer reads
        plural_s = owner.plural and b.words[phrase.en[-1]].endswith("s")
        b.words[phrase.en[-1]] += "'" if plural_s else "'s"
        owner_de, owner_en = phrase.de, phrase.en
        mark = phrase.en[-1:]
        article = [(lx.DEF_ARTICLE[case][g], tuple(mark))]
        declension = "weak"
        b.tags.add("possessive_s")
    head = _Phrase(list(owner_en), list(article), g, 5 if np.plural else 2)
    if np.adjective:
        adj = lex.adjective(np.adjective)
        adj_ids = b.en(adj.en)
        table = lx.STRONG if declension == "strong" else lx.WEAK
        head.en += adj_ids
        head.de.append((adj.de_stem + table[case][g], tuple(adj_ids)))
    noun_ids = b.en(noun.en_plural if np.plural else noun.en)
    head.en += noun_ids
    if np.plural:
        de_noun = noun.de_dative_plural if case == "dat" else noun.de_plural
    elif case == "gen":
        de_noun = noun.de_genitive
    else:
        de_noun = noun.de if case == "nom" else noun.de_oblique
    noun_de = (de_noun, tuple(noun_ids))
    if owner.name:
        head.de = owner_de + head.de + [noun_de]
    else:
        head.de = head.de + [noun_de] + owner_de
    return head


def _indefinite(b: _Builder, np: NP, case: str, kein: list[int] | None) -> _Phrase:
    """v2.1: nothing = nichts, nobody = niemand(en/em), something = etwas, somebody = jemand;
    "anything"/"anybody" under negation is nichts/niemand and says the "not" ("didn't see
    anything" = "sah nichts")."""
    ids = b.en(np.indefinite)  # type: ignore[arg-type]
    if np.indefinite in lx.DEMONSTRATIVE:  # "This is my friend." = "Das ist mein Freund."
        b.tags.add("demonstrative_pronoun")
        return _Phrase(ids, [("dem" if case == "dat" else "das", tuple(ids))], "n")
    word = lx.INDEFINITE[np.indefinite]  # type: ignore[index]
    if kein is not None:
        word = {"etwas": "nichts", "jemand": "niemand"}[word]
    links = tuple(sorted({*ids, *(kein or ())}))
    if word in ("jemand", "niemand"):
        word += {"nom": "", "acc": "en", "dat": "em"}[case]
    b.tags.add("negation_indefinite" if word.startswith("n") else "indefinite")
    return _Phrase(ids, [(word, links)], "n" if word in ("nichts", "etwas") else "m")


def _with_relative(b: _Builder, np: NP, phrase: _Phrase) -> _Phrase:
    """The head noun phrase followed by its relative clause: "der Mann, der das Buch liest,"
    (the relative pronoun takes the head's gender and number and its own clause's case)."""
    if np.relative is None:
        return phrase
    rel = np.relative
    c = rel.clause
    rel_ids = b.en(rel.pronoun)
    if c.gap == "subject":
        rel_case = "nom"
        b.tags.add("relative_subject")
    else:
        frame = b.lex.verb(c.verb).frame if c.verb else "acc"  # type: ignore[arg-type]
        rel_case = "dat" if frame == "dat" else "acc"
        b.tags.add("relative_object")
    pron = (lx.RELATIVE[rel_case][phrase.gender], tuple(rel_ids))
    en, de = _clause(b, c, "relative", head=phrase)
    phrase.en += rel_ids + en
    phrase.de += [(",", ()), pron] + de + [(",", ())]
    return phrase


def _pp(b: _Builder, pp: PP, motion: bool) -> _Phrase:
    prep = b.lex.preposition(pp.prep)
    prep_ids = b.en(*prep.en)
    case = prep.case
    if case == "two-way":
        case = "acc" if motion else "dat"
    if pp.np.name and b.lex.name(pp.np.name).kind == "language" and prep.key:
        return _language_pp(b, prep, case, pp.np, prep_ids)
    inner = _np(b, pp.np, case)
    b.tags.add(f"preposition_{case}")
    de_prep = list(prep.de)
    if not de_prep:  # v2.1: "three cups of coffee" = "drei Tassen Kaffee"
        b.tags.add("amount_of")
        return _Phrase(prep_ids + inner.en, inner.de, inner.gender)
    if pp.np.name and prep.de_name and b.lex.name(pp.np.name).kind != "person":
        de_prep = [prep.de_name]
    first_word, first_links = inner.de[0]
    contracted = lx.CONTRACTIONS.get((de_prep[-1], first_word))
    if pp.np.det == "the" and not pp.np.plural and not pp.np.name and contracted:
        b.tags.add("contraction")
        head = [(w, tuple(prep_ids)) for w in de_prep[:-1]]
        de = head + [(contracted, tuple(prep_ids) + first_links)] + inner.de[1:]
    else:
        de = [(w, tuple(prep_ids)) for w in de_prep] + inner.de
    return _Phrase(prep_ids + inner.en, de, inner.gender)


def _language_pp(
    b: _Builder, prep: lx.Preposition, case: str, np: NP, prep_ids: list[int]
) -> _Phrase:
    """v2.1: a language after its sense of a preposition (prepositions_v2_1.tsv): "in German" =
    "auf Deutsch", a name (case bare); "into German" = "ins Deutsche", "from English" = "aus dem
    Englischen", the neuter adjective as a noun with its article."""
    inner = _np(b, np, "nom")
    (word, links), links_prep = inner.de[0], tuple(prep_ids)
    b.tags.add("language_preposition")
    if case == "bare":
        return _Phrase(prep_ids + inner.en, [(w, links_prep) for w in prep.de] + inner.de, "n")
    article = lx.DEF_ARTICLE[case]["n"]
    noun = word + lx.WEAK[case]["n"]  # das Deutsche, dem Deutschen
    contracted = lx.CONTRACTIONS.get((prep.de[-1], article))
    head = [(w, links_prep) for w in prep.de[:-1]]
    if contracted:
        de = head + [(contracted, links_prep), (noun, links)]
    else:
        de = head + [(prep.de[-1], links_prep), (article, links_prep), (noun, links)]
    return _Phrase(prep_ids + inner.en, de, "n")


# English do-support and auxiliaries, by tense: (positive, negative contracted)
_NEG_CONTRACTED = {
    "do": "don't",
    "does": "doesn't",
    "did": "didn't",
    "is": "isn't",
    "are": "aren't",
    "was": "wasn't",
    "were": "weren't",
    "has": "hasn't",
    "have": "haven't",
    "will": "won't",
    "can": "can't",
    "could": "couldn't",
    "must": "mustn't",
    "had": "hadn't",
}


@dataclass
class _VerbGroup:
    front: list[int]  # the auxiliary before the subject in a question
    rest: list[int]  # after the subject
    adv_slot: int  # where in `rest` an English frequency adverb goes ("has often seen")
    finite: DeTok
    right: list[DeTok]  # German right bracket: infinitive / participle
    prefix: DeTok | None  # separable prefix of a finite lexical verb
    neg: list[int] | None  # English tokens that German "nicht"/"kein" translate


def _aux(b: _Builder, word: str, c: Clause, inverted: bool) -> tuple[list[int], list[int]]:
    """An English auxiliary with the clause's negation: (front, rest) and sets b.neg."""
    if inverted:
        ids = b.en(word)
        b.neg = b.en("not") if c.negated else None
        return ids, list(b.neg or [])
    if not c.negated:
        return [], b.en(word)
    if c.contracted and word in _NEG_CONTRACTED:
        ids = b.en(_NEG_CONTRACTED[word])
        b.neg = ids
        return [], list(ids)
    if word == "can":
        ids = b.en("cannot")
        b.neg = ids
        return [], list(ids)
    ids = b.en(word)
    b.neg = b.en("not")
    return [], ids + b.neg


def _verb_group(
    b: _Builder,
    c: Clause,
    person: int,
    inverted: bool,
    de_tense: str | None,
    idiom: str | None = None,
):
    """English verb group and German verb forms. `de_tense` shifts the German tense of a
    nachdem-clause to the perfect (English present) or pluperfect (English past). `idiom`
    (v2.1) says the German of a copula otherwise: "dative" ("I am cold" = "Mir ist kalt": sein
    in the third person) or "haben" ("I am hungry" = "Ich habe Hunger")."""
    lex = b.lex
    third = person == 2
    b.neg = None
    if c.verb is None and idiom is not None:
        return _idiom_group(b, c, person, inverted, idiom)
    if c.verb is None:  # the copula, or "there is"
        if c.tense in ("present", "past"):
            be = lx.EN_BE[c.tense][person]
            front, rest = _aux(b, be, c, inverted)
            links = tuple(front or rest[:1])
            word = lx.GEBEN[c.tense] if c.there is not None else lx.SEIN[c.tense][person]
            b.tags.add("copula" if c.there is None else "there_is")
            b.tags.add(c.tense)
            return _VerbGroup(front, rest, len(rest), (word, links), [], None, b.neg)
        aux = "will" if c.tense == "future" else ("has" if third else "have")
        front, rest = _aux(b, aux, c, inverted)
        slot = len(rest)
        links = tuple(front or rest[:1])
        be_ids = b.en("be" if c.tense == "future" else "been")
        rest += be_ids
        b.tags.add(c.tense)
        if c.tense == "future":
            finite, right = (lx.WERDEN[person], links), [("sein", tuple(be_ids))]
        else:
            finite = (lx.SEIN["present"][person], links)
            right = [(lx.SEIN["participle"], tuple(be_ids))]
        return _VerbGroup(front, rest, slot, finite, right, None, b.neg)

    v = lex.verb(c.verb)
    if c.imperative:
        front, rest = _aux(b, "do", c, False) if c.negated else ([], [])
        ids = b.en(v.en)
        prefix = (v.prefix, tuple(ids)) if v.prefix else None
        return _VerbGroup([], rest + ids, 0, (v.de_imperative, tuple(ids)), [], prefix, b.neg)

    if c.modal:
        m = lx.MODAL_BY_KEY[c.modal]
        b.tags.add("modal")
        forms = m.de_negated if (c.negated and m.de_negated) else m.de_present
        if c.modal in ("want", "have"):  # do-support: "doesn't want to", "Do I have to"
            if inverted or c.negated:
                front, rest = _aux(b, "does" if third else "do", c, inverted)
                fin = b.en(c.modal)
            else:
                third_form = {"want": "wants", "have": "has"}[c.modal]
                front, rest, fin = [], [], b.en(third_form if third else c.modal)
            rest += fin + b.en("to")
            slot = 0
        else:
            could = c.modal == "can" and c.tense == "past"
            front, rest = _aux(b, "could" if could else m.en, c, inverted)
            fin = front or rest[:1]
            slot = len(rest)
            if could:
                forms = lx.COULD
        ids = b.en(v.en)
        return _VerbGroup(
            front, rest + ids, slot, (forms[person], tuple(fin)), [(v.de, tuple(ids))], None, b.neg
        )

    tense = c.tense
    if tense in ("perfect", "pluperfect", "future", "progressive"):
        aux = {
            "perfect": "has" if third else "have",
            "pluperfect": "had",
            "future": "will",
            "progressive": lx.EN_BE["present"][person],
        }[tense]
        front, rest = _aux(b, aux, c, inverted)
        aux_links = tuple(front or rest[:1])
        slot = len(rest)
        word = {"future": v.en, "progressive": v.en_ing}.get(tense, v.en_participle)
        ids = b.en(word)
        rest += ids
        b.tags.add(tense)
        if tense == "progressive":
            prefix = (v.prefix, tuple(ids)) if v.prefix else None
            finite = (v.de_present[person], tuple(ids))
            return _VerbGroup(front, rest, slot, finite, [], prefix, b.neg)
        if tense == "future":
            finite = (lx.WERDEN[person], aux_links)
            return _VerbGroup(front, rest, slot, finite, [(v.de, tuple(ids))], None, b.neg)
        aux_forms = lx.SEIN if v.aux == "sein" else lx.HABEN
        b.tags.add("perfect_sein" if v.aux == "sein" else "perfect_haben")
        finite = (aux_forms["past" if tense == "pluperfect" else "present"][person], aux_links)
        return _VerbGroup(front, rest, slot, finite, [(v.de_participle, tuple(ids))], None, b.neg)

    # simple present / past, with do-support in questions and negation
    b.tags.add(tense)
    if inverted or c.negated:
        do = ("does" if third else "do") if tense == "present" else "did"
        front, rest = _aux(b, do, c, inverted)
        slot = len(rest)
        ids = b.en(v.en)
        rest += ids
    else:
        front, slot = [], 0
        ids = b.en(v.en_past if tense == "past" else (v.en_3sg if third else v.en))
        rest = list(ids)
    links = tuple(ids)
    if de_tense is not None:  # nachdem, or a du/ihr question (v2.1): perfect / pluperfect
        aux_forms = lx.SEIN if v.aux == "sein" else lx.HABEN
        aux_links = tuple(front) + links  # a question's "did" is the auxiliary's tense
        finite = (aux_forms["past" if de_tense == "pluperfect" else "present"][person], aux_links)
        b.tags.add("pluperfect" if de_tense == "pluperfect" else "perfect_shift")
        return _VerbGroup(front, rest, slot, finite, [(v.de_participle, links)], None, b.neg)
    forms = v.de_present if tense == "present" else v.de_preterite
    prefix = (v.prefix, links) if v.prefix else None
    return _VerbGroup(front, rest, slot, (forms[person], links), [], prefix, b.neg)


def _idiom_group(b: _Builder, c: Clause, person: int, inverted: bool, idiom: str) -> _VerbGroup:
    """The copula of "I am cold" (German: mir ist, third person) or "I am hungry" (ich habe)."""
    de_person = 2 if idiom == "dative" else person
    forms = lx.SEIN if idiom == "dative" else lx.HABEN
    if c.tense in ("present", "past"):
        front, rest = _aux(b, lx.EN_BE[c.tense][person], c, inverted)
        links = tuple(front or rest[:1])
        b.tags.add(c.tense)
        return _VerbGroup(
            front, rest, len(rest), (forms[c.tense][de_person], links), [], None, b.neg
        )
    aux = "will" if c.tense == "future" else ("has" if person == 2 else "have")
    front, rest = _aux(b, aux, c, inverted)
    slot, links = len(rest), tuple(front or rest[:1])
    be_ids = b.en("be" if c.tense == "future" else "been")
    rest += be_ids
    b.tags.add(c.tense)
    if c.tense == "future":
        finite = (lx.WERDEN[de_person], links)
        right = [("sein" if idiom == "dative" else "haben", tuple(be_ids))]
    else:
        finite = (
            forms["present"][de_person] if idiom == "dative" else lx.HABEN["present"][person],
            links,
        )
        right = [("gewesen" if idiom == "dative" else "gehabt", tuple(be_ids))]
    return _VerbGroup(front, rest, slot, finite, right, None, b.neg)


def _idiom_complement(b: _Builder, c: Clause, comp: _Phrase, idiom: str) -> _Phrase:
    """kalt for cold (mir ist kalt), Hunger for hungry (habe Hunger, under negation keinen)."""
    adjective = c.complement.adjective  # type: ignore[union-attr]
    b.tags.add(f"idiom_{idiom}")
    if idiom == "dative":
        *degree, (_, links) = comp.de
        return _Phrase(comp.en, [*degree, (lx.DATIVE_ADJECTIVES[adjective], links)])  # type: ignore[index]
    (_, links) = comp.de[-1]
    noun = lx.HAVE_NOUNS[adjective]  # type: ignore[index]
    if c.negated and noun[0].isupper():
        return _Phrase(comp.en, [("keinen", tuple(b.neg or ())), (noun, links)])
    return _Phrase(comp.en, [(noun, links)])


def copula_idiom(lex: Lexicon, c: Clause) -> str | None:
    """v2.1: German says a person's cold, warmth, boredom with a dative ("Mir ist kalt"), and
    hunger and thirst with haben ("Ich habe Hunger"); None for any other copula."""
    comp = c.complement
    if lex.version != "v2" and c.verb is None and comp is None and _late(lex, c):
        return "haben"  # "The train was late." = "Der Zug hatte Verspätung."
    if lex.version == "v2" or c.verb is not None or comp is None or comp.than:
        return None
    if comp.adjective not in lx.DATIVE_ADJECTIVES and comp.adjective not in lx.HAVE_NOUNS:
        return None
    subj = c.subject
    if subj is None or subj.wh or subj.indefinite or subj.pronoun == "it" or subj.coord:
        return None
    if subj.pronoun is None and not np_classes(lex, subj) & {"person", "animal"}:
        return None
    if comp.adjective in lx.HAVE_NOUNS:
        return None if comp.degree else "haben"
    return "dative"


def _late(lex: Lexicon, c: Clause) -> bool:
    """v2.1: a person, an animal or a vehicle "is late" (the copula with the adverb alone): it
    has a delay, Verspätung; "it is late" (the time) stays "es ist spät"."""
    subj = c.subject
    if c.adverb != "late" or c.there is not None or c.pp is not None or c.place is not None:
        return False
    if subj is None or subj.wh or subj.indefinite or subj.pronoun == "it" or c.wh == "how":
        return False
    return subj.pronoun is not None or bool(
        np_classes(lex, subj) & {"person", "animal", "vehicle", "group"}
    )


def _to_a_goal(lex: Lexicon, c: Clause, v: lx.Verb | None) -> bool:
    """Does the clause's phrase say where its verb of motion goes (accusative: "legt das Buch
    auf den Tisch")? v2.1: English says a goal of going, swimming, driving with "into", "onto",
    "to", so that "swims on the lake" is where it swims, "auf dem See"; v2 took "on" as a goal."""
    if v is None or not v.motion or c.pp is None:
        return False
    if lex.version == "v2" or v.en not in lx.MOVING_ABOUT:
        return True
    return " ".join(lex.preposition(c.pp.prep).en) not in ("in", "on", "at")


def _goes_to(lex: Lexicon, v: lx.Verb | None) -> bool:
    """v2.1: does a place adverb say where the verb goes ("went outside" = "ging nach
    draußen")? For go and a verb of motion that is not also one of moving about (come, put):
    "swims there", "runs outside" stay where it happens."""
    return (
        lex.version != "v2"
        and v is not None
        and v.motion
        and (v.en == "go" or v.en not in lx.MOVING_ABOUT)
    )


def _on_foot(lex: Lexicon, c: Clause, v: lx.Verb | None) -> bool:
    """v2.1: is the clause's verb gehen on foot to somewhere (lexicon.ON_FOOT)? "I walk to
    work" = "Ich gehe zu Fuß zur Arbeit", where "geht zur Arbeit" may be by bus."""
    if lex.version == "v2" or v is None or v.key not in lx.ON_FOOT:
        return False
    goal = c.place is not None and lex.adverb(c.place).kind == "goal"
    return goal or (c.pp is not None and lex.preposition(c.pp.prep).en == ("to",))


def _since(lex: Lexicon, c: Clause, adv: lx.Adverb, idiom: str | None) -> bool:
    """v2.1: a present perfect with how long it has lasted, which German says in the present
    with seit; negated it stays perfect ("hat ihn seit zwei Jahren nicht gesehen" is v2.1's
    to come: its duration would say how long the not-seeing lasted)."""
    return (
        lex.version != "v2"
        and adv.kind == "duration"
        and c.tense == "perfect"
        and not c.negated
        and not c.modal
        and c.there is None
        and idiom is None
    )


def _dative_duration(de: tuple[str, ...]) -> tuple[str, ...]:
    """ "eine Stunde" -> "einer Stunde", "zehn Jahre" -> "zehn Jahren", "lange" -> "langem"."""
    if de == ("lange",):
        return ("langem",)
    count, unit = de
    article = {"eine": "einer", "einen": "einem", "ein": "einem"}
    if count in article:
        return (article[count], unit)
    return (count, unit if unit.endswith(("n", "s")) else unit + "n")


# v2.1: prepositions that say when, whose phrase stands before nicht like a time adverb
_TIME_PREPOSITIONS = frozenset({"during", "after", "before", "since", "until", "within"})


def _free_pp(lex: Lexicon, c: Clause, v: lx.Verb | None) -> bool:
    """v2.1: is the clause's prepositional phrase a free adverbial, which stands before nicht
    ("Er mochte das Essen im Restaurant nicht.", "... während der Prüfung nicht benutzen")? A
    time always; a place where the verb has its object, so that the place only says where it
    happened, not where the verb goes ("legte das Buch nicht auf den Tisch") or is ("wohnt nicht
    in Berlin", "ist nicht im Garten"). v2 put every phrase after nicht."""
    if lex.version == "v2" or c.pp is None:
        return False
    if " ".join(lex.preposition(c.pp.prep).en) in _TIME_PREPOSITIONS:
        return True
    return (
        v is not None
        and not v.motion
        and v.frame in ("acc", "dat", "dat_acc")
        and (c.obj is not None or c.iobj is not None)
    )


def _bare_object(lex: Lexicon, c: Clause, v: lx.Verb | None) -> NP | None:
    """v2.1: the object of a verb that takes only classes said without an article in German
    (lexicon.BARE_OBJECT_CLASSES), as the German says it: "plays the guitar" = "spielt
    Gitarre" (under negation "spielt keine Gitarre"), where "my guitar", "the old guitar", "the
    guitars" keep theirs. None where nothing changes."""
    obj = c.obj
    if (
        lex.version == "v2"
        or v is None
        or not v.obj
        or not v.obj <= lx.BARE_OBJECT_CLASSES
        or obj is None
        or obj.noun is None
        or obj.det != "the"
        or obj.plural
        or obj.adjective
        or obj.relative is not None
        or obj.owner is not None  # "Anna's guitar" keeps its det "the" (Annas Gitarre)
    ):
        return None
    return replace(obj, det="bare")


def _kein_target(c: Clause, frame: str) -> NP | None:
    """The noun phrase that turns into kein- under negation: an indefinite object, predicative
    noun or "there is" noun ("has no car" is already kein by its determiner)."""
    if not c.negated:
        return None
    obj = c.obj if frame != "prep" else None  # "wartet nicht auf einen Bus"
    if obj is not None and obj.indefinite in ("anything", "anybody", "anyone"):
        return obj  # v2.1: "didn't see anything" = "sah nichts"
    for target in (obj, c.there, c.complement.np if c.complement else None):
        if (
            target is not None
            and target.noun is not None
            and target.det in ("a", "bare", "any")
            and target.relative is None
        ):
            return target
    return None


def mid_position(adv: lx.Adverb) -> bool:
    """English puts one-word frequency adverbs before the verb ("often sleeps", "has never
    seen"); "every day", "again" and the other adverbs go at the end."""
    return adv.kind == "frequency" and len(adv.en) == 1 and adv.en[0] not in ("again", "once")


def _flat(tokens: list[DeTok]) -> list[DeTok]:
    """Multi-word German adverbs ("jeden Tag") become one token a word."""
    return [(w, links) for word, links in tokens for w in word.split(" ")]


def _clause(
    b: _Builder, c: Clause, mode: str, head: _Phrase | None = None, conj: str | None = None
) -> tuple[list[int], list[DeTok]]:
    """Realise one clause. mode: main | sub | relative. Returns the English ids in order and
    the German tokens in order (a subordinate clause without its conjunction)."""
    lex = b.lex
    if c.named is not None:
        return _named(b, c, mode)
    v = lex.verb(c.verb) if c.verb else None
    frame = v.frame if v else "copula"
    if c.imperative:
        person = 1
    elif c.gap == "subject" and head is not None:
        person = head.person
    elif c.there is not None:
        person = 5 if c.there.plural else 2
    else:
        person = _person(c.subject)
    subj_wh = c.subject is not None and c.subject.wh is not None
    obj_wh = c.obj is not None and c.obj.wh is not None
    inverted = (
        mode in ("main", "inverted") and not subj_wh and (c.question or c.wh is not None or obj_wh)
    )
    de_tense = None
    if conj == "after":
        de_tense = "pluperfect" if c.tense == "past" else "perfect"
    if lex.version != "v2" and inverted and c.tense == "past" and person in (1, 4):
        # v2.1: "Did you sleep well?" = "Hast du gut geschlafen?"; a du/ihr question in the
        # Präteritum ("Schliefst du gut?") is not what anyone says
        if v is not None and not c.modal and c.there is None:
            de_tense = "perfect"

    adv = lex.adverb(c.adverb) if c.adverb else None
    if adv is not None and _goes_to(lex, v) and c.adverb in lx.GOAL_OF_PLACE:
        adv = replace(adv, de=lx.GOAL_OF_PLACE[c.adverb])  # v2.1: "went outside" = "nach draußen"
        b.tags.add("goal_adverb")
    please = b.en("please") if c.please else []
    wh = b.en(c.wh) if c.wh else []
    adv_ids = b.en(*adv.en) if adv else []
    idiom = copula_idiom(lex, c)
    if c.subject is None:
        subj = None
    elif idiom == "dative":
        subj = _np(b, c.subject, "dat", en_subject=True)
    else:
        subj = _np(b, c.subject, "nom")
    vg = _verb_group(b, c, person, inverted, de_tense, idiom)
    if adv is not None and _since(lex, c, adv, idiom):
        # v2.1: "She has lived here for 10 years." = "Sie wohnt seit 10 Jahren hier.": what
        # still goes on is the German present, and its duration is "seit" + dative
        links = tuple(vg.finite[1]) + tuple(vg.right[0][1])
        word = v.de_present[person] if v else lx.SEIN["present"][person]
        vg.finite, vg.right = (word, links), []
        vg.prefix = (v.prefix, links) if v and v.prefix else None
        adv = replace(adv, de=("seit", *_dative_duration(adv.de)))
        b.tags.add("duration_since")
    bare = _bare_object(lex, c, v)
    if bare is not None:  # v2.1: "plays the guitar" = "spielt Gitarre"
        c = replace(c, obj=bare)
    target = _kein_target(c, frame)
    iobj = _np(b, c.iobj, "dat") if c.iobj else None
    particle = (
        b.en(*v.en_particle.split()) if (v and v.en_particle and c.obj and not obj_wh) else []
    )
    obj = None
    if c.obj is not None:
        if frame == "prep":
            prep_de, prep_case = v.de_object_prep  # type: ignore[union-attr, misc]
            inner = _np(b, c.obj, prep_case)
            # the German preposition translates the English particle, or else the verb
            # (climb the tree = klettert auf den Baum)
            verb_ids = vg.right[0][1] if vg.right else vg.finite[1]
            links = tuple(particle) or tuple(verb_ids)
            obj = _Phrase(inner.en, [(prep_de, links)] + inner.de, inner.gender)
            b.tags.add("prepositional_object")
        else:
            case = "dat" if frame in ("dat", "that") else "acc"  # v2.1: "told me that"
            the = b.en("the") if bare is not None else []
            obj = _np(b, c.obj, case, kein=vg.neg if c.obj is target else None)
            b.tags.add("dative_object" if case == "dat" else "accusative")
            if the:  # "the guitar" = "Gitarre": the noun says both English words
                word, links = obj.de[-1]
                obj.en = the + obj.en
                obj.de[-1] = (word, tuple(sorted({*links, *the})))
                b.tags.add("object_without_article")
    if frame == "dat_acc":
        b.tags.add("ditransitive")
    to_ids: list[int] = []
    if c.to_dative and iobj is not None:
        # "to" is what the German dative's case says: it goes with the dative's first word
        to_ids = b.en("to")
        word, links = iobj.de[0]
        iobj.de[0] = (word, tuple(sorted({*links, *to_ids})))
        b.tags.add("dative_to")
    there_ids = b.en("there") if c.there is not None else []
    there = _np(b, c.there, "acc", kein=vg.neg if c.there is target else None) if c.there else None
    comp = _complement(b, c.complement, target, vg) if c.complement else None
    if comp is not None and v is not None:  # v2.1: "Tom runs faster than Paul."
        b.tags.add("linking_verb" if frame == "adj" else "comparison_adverbial")
    if idiom and comp is not None:
        comp = _idiom_complement(b, c, comp, idiom)
    if idiom and comp is None and adv is not None:  # "was late" = "hatte Verspätung"
        kein = [("keine", tuple(vg.neg or ()))] if c.negated else []
        comp = _Phrase(adv_ids, [*kein, (lx.DELAY, tuple(adv_ids))])
        b.tags.add("idiom_late")
        adv = None
    goal = lex.adverb(c.place) if c.place else None
    goal_ids = b.en(*goal.en) if goal else []
    if goal:
        b.tags.add("goal" if goal.kind == "goal" else "place_and_time")
    pp = _pp(b, c.pp, _to_a_goal(lex, c, v)) if c.pp else None
    if c.negated:
        b.tags.add("negation")

    # ------------------------------------------------------------- English order
    rest = list(vg.rest)
    mid = adv is not None and mid_position(adv) and not c.adverb_front
    if mid:
        rest = rest[: vg.adv_slot] + adv_ids + rest[vg.adv_slot :]
    objects = (iobj.en if iobj else []) + (particle + obj.en if obj and not obj_wh else [])
    if to_ids:  # "gives the book to the man"
        objects = (particle + obj.en if obj and not obj_wh else []) + to_ids + iobj.en  # type: ignore[union-attr]
    tail = objects + (there.en if there else []) + (comp.en if comp else [])
    tail += goal_ids + (pp.en if pp else [])  # "went home after school"
    if adv and not c.adverb_front and not mid:
        tail += adv_ids
    en = please + (adv_ids if c.adverb_front else [])
    if subj_wh:
        en += subj.en + rest + tail  # type: ignore[union-attr]
    elif c.wh == "how" and comp is not None and c.complement.adjective:  # type: ignore[union-attr]
        en += wh + comp.en + vg.front + subj.en + rest  # type: ignore[union-attr]
    elif obj_wh or c.wh:
        en += (obj.en if obj_wh else wh) + vg.front + subj.en + rest + tail  # type: ignore
    elif c.there is not None:
        en += vg.front + there_ids + rest + tail if inverted else there_ids + rest + tail
    elif c.gap == "subject" or subj is None:
        en += rest + tail
    else:
        en += vg.front + subj.en + rest + tail

    # -------------------------------------------------------------- German fields
    obj_is_pron = obj is not None and c.obj is not None and c.obj.pronoun is not None
    middle: list[DeTok] = []
    if obj_is_pron and frame != "prep":
        middle += obj.de  # type: ignore[union-attr]
    if iobj and c.iobj is not None and c.iobj.pronoun:
        middle += iobj.de
    if adv and not c.adverb_front and adv.kind in ("time", "duration", "frequency", "sentence"):
        middle.append((" ".join(adv.de), tuple(adv_ids)))
    if iobj and c.iobj is not None and not c.iobj.pronoun:
        middle += iobj.de
    if obj and not obj_is_pron and not obj_wh and frame != "prep":
        middle += obj.de
    if there:
        middle += there.de
    kein_idiom = idiom == "haben" and (c.complement is None or c.complement.adjective != "right")
    nicht = (
        [("nicht", tuple(vg.neg or ()))] if c.negated and target is None and not kein_idiom else []
    )
    if nicht:
        b.tags.add("negation_nicht")
    # v2.1: a predicative adjective (or Hunger, recht, a comparison) closes the middle field
    # with its nicht: "Die Kinder sind im Garten nicht glücklich"; v2 put it before the place
    late = comp is not None and (
        idiom is not None or (lex.version != "v2" and c.complement.adjective is not None)  # type: ignore[union-attr]
    )
    adjunct = pp is not None and nicht and _free_pp(lex, c, v)
    if adjunct:  # v2.1: "mochte das Essen im Restaurant nicht"
        middle += pp.de  # type: ignore[union-attr]
    if not late:
        middle += nicht
    # v2.1: how comes before where (temporal, causal, modal, local: "gingen zusammen nach
    # Paris", "wartet geduldig auf den Bus"); v2 put it last
    manner = adv is not None and not c.adverb_front and adv.kind == "manner"
    manner = manner and lex.version != "v2"
    if manner:
        middle.append((" ".join(adv.de), tuple(adv_ids)))  # type: ignore[union-attr]
    if _on_foot(lex, c, v):  # v2.1: "walk to work" = "zu Fuß zur Arbeit gehen"
        middle.append(("zu Fuß", tuple(vg.right[0][1] if vg.right else vg.finite[1])))
        b.tags.add("on_foot")
    if obj and frame == "prep" and not obj_wh:
        middle += obj.de
    if comp and not late:
        middle += comp.de
    if pp and not adjunct:
        middle += pp.de
    if adv and not c.adverb_front and adv.kind in ("place", "manner") and not manner:
        middle.append((" ".join(adv.de), tuple(adv_ids)))
    if goal:  # "ging nach der Schule nach Hause": the place closes the middle field
        middle.append((" ".join(goal.de), tuple(goal_ids)))
    if comp and late:  # "Uns ist in der Küche warm."
        middle += nicht + comp.de
    subj_de = [] if (subj is None or subj_wh) else subj.de
    b.roles = {
        "subject": _antecedent(b, c.subject, subj),
        "object": _antecedent(b, c.obj, obj),
        "pp": _antecedent(b, c.pp.np, _Phrase(pp.en[len(lex.preposition(c.pp.prep).en) :]))
        if c.pp and pp
        else None,
    }
    if c.there is not None:
        subj_de = [("es", tuple(there_ids))]
    lead = len(obj.de if obj_is_pron and frame != "prep" else []) + len(  # type: ignore[union-attr]
        iobj.de if iobj and c.iobj is not None and c.iobj.pronoun else []
    )
    if lead and subj_de and lex.version != "v2" and c.subject and c.subject.pronoun is None:
        # v2.1: an unstressed pronoun goes before a subject that is no pronoun where the verb
        # comes before them both ("Gestern stellten mir die Studenten eine Frage."); v2 wrote it
        # after and stays as it was
        after_verb = middle[:lead] + subj_de + middle[lead:]
    else:
        after_verb = subj_de + middle

    if mode in ("sub", "relative"):
        finite = vg.finite
        if vg.prefix:
            finite = (vg.prefix[0] + finite[0], finite[1])
            b.tags.add("separable")
        return en, _flat(subj_de + middle + vg.right + [finite])  # "dass Paul sie mag"

    right = vg.right + ([vg.prefix] if vg.prefix else [])
    if vg.prefix:
        b.tags.add("separable")
    if c.imperative:
        b.tags.add("imperative")
        if c.please:
            b.tags.add("imperative_please")
        de = ([("bitte", tuple(please))] if c.please else []) + [vg.finite] + middle + right
    elif subj_wh:
        b.tags.update({"question_wh", f"question_{c.subject.wh}"})  # type: ignore[union-attr]
        de = subj.de + [vg.finite] + middle + right  # type: ignore[union-attr]
    elif obj_wh:
        b.tags.update({"question_wh", f"question_{c.obj.wh}"})  # type: ignore[union-attr]
        de = obj.de + [vg.finite] + after_verb + right  # type: ignore[union-attr]
    elif c.wh == "how" and comp is not None and c.complement.adjective:  # type: ignore[union-attr]
        b.tags.update({"question_wh", "question_how", "question_how_adjective"})
        rest_mid = [t for t in middle if t not in comp.de]
        de = [(lx.WH_ADVERBS[c.wh], tuple(wh))] + comp.de + [vg.finite] + subj_de + rest_mid
    elif c.wh:
        b.tags.update({"question_wh", f"question_{c.wh}"})
        de = [(lx.WH_ADVERBS[c.wh], tuple(wh)), vg.finite] + after_verb + right
    elif c.question:
        b.tags.add("question_yn")
        de = [vg.finite] + after_verb + right
    elif mode == "inverted":  # a subordinate clause stands before: verb first
        de = [vg.finite] + after_verb + right
    elif c.adverb_front and adv:
        b.tags.add("adverb_front")
        de = [(" ".join(adv.de), tuple(adv_ids)), vg.finite] + after_verb + right
    else:
        de = subj_de + [vg.finite] + middle + right
    if adv:
        b.tags.add(f"adverb_{adv.kind}")
    return en, _flat(de)


def _named(b: _Builder, c: Clause, mode: str) -> tuple[list[int], list[DeTok]]:
    """v2.1: "My name is Paul." = "Ich heiße Paul."; "What is your name?" = "Wie heißt du?"
    German says who is called what, with heißen: the owner of the name is its subject."""
    owner = lx.PRONOUN_BY_KEY[c.subject.pronoun]  # type: ignore[union-attr]
    b.tags.add("name_is")
    be_word = lx.EN_BE[c.tense][2]
    if c.named == "what":
        what, be, poss, name = b.en("what"), b.en(be_word), b.en(owner.en_possessive), b.en("name")
        verb = (lx.HEISSEN[c.tense][owner.person], tuple(be + name))
        return what + be + poss + name, [("wie", tuple(what)), verb, (owner.de_nom, tuple(poss))]
    be = b.en(be_word) if c.question else []
    poss, name = b.en(owner.en_possessive), b.en("name")
    be = be or b.en(be_word)
    who = b.lex.name(c.named)
    called = b.en(who.en)
    subj = (owner.de_nom, tuple(poss))
    verb = (lx.HEISSEN[c.tense][owner.person], tuple(name + be))
    german = (who.de, tuple(called))
    if c.question:
        return be + poss + name + called, [verb, subj, german]
    en = poss + name + be + called
    if mode == "sub":
        return en, [subj, german, verb]
    if mode == "inverted":
        return en, [verb, subj, german]
    return en, [subj, verb, german]


def _comparison(b: _Builder, comp: Complement) -> _Phrase:
    """v2.1: "bigger than the dog" = "größer als der Hund", "more interesting than the film" =
    "interessanter als der Film", "as old as my father" = "so alt wie mein Vater"; the compared
    noun phrase takes the subject's case."""
    adj = b.lex.adjective(comp.adjective)  # type: ignore[arg-type]
    if comp.degree == "comparative":
        grades = b.lex.grades_of(adj.en)
        a_ids, than_ids = b.en(*grades.en_comparative), b.en("than")
        de = [(grades.de_comparative, tuple(a_ids)), ("als", tuple(than_ids))]
        en = a_ids + than_ids
    else:
        as1, a_ids, as2 = b.en("as"), b.en(adj.en), b.en("as")
        de = [("so", tuple(as1)), (adj.de, tuple(a_ids)), ("wie", tuple(as2))]
        en = as1 + a_ids + as2
    b.tags.add(f"comparison_{comp.degree}")
    other = _np(b, comp.than, "nom") if comp.than else None
    if other is None:
        return _Phrase(en, de)
    return _Phrase(en + other.en, de + other.de)


def _complement(b: _Builder, comp: Complement, target: NP | None, vg: _VerbGroup) -> _Phrase:
    if comp.adjective and comp.degree in ("comparative", "equal"):
        return _comparison(b, comp)
    if comp.adjective:
        adj = b.lex.adjective(comp.adjective)
        ids: list[int] = []
        de: list[DeTok] = []
        if comp.degree:
            d_ids = b.en(comp.degree)
            ids += d_ids
            de.append((lx.DEGREE[comp.degree], tuple(d_ids)))
            b.tags.add(f"degree_{comp.degree}")
        a_ids = b.en(adj.en)
        b.tags.add("copula_adjective")
        return _Phrase(ids + a_ids, de + [(adj.de, tuple(a_ids))])
    if comp.age:  # "is ten years old" = "ist zehn Jahre alt"
        n_ids = b.en(comp.age)
        one = comp.age in ("one", "1")
        y_ids, old = b.en("year" if one else "years"), b.en("old")
        number = comp.age if comp.age.isdigit() else lx.ALL_NUMBER_WORDS[comp.age]
        de = [(number, tuple(n_ids)), ("Jahr" if one else "Jahre", tuple(y_ids))]
        b.tags.add("age")
        return _Phrase(n_ids + y_ids + old, de + [("alt", tuple(old))])
    if comp.np:
        b.tags.add("copula_noun")
        return _np(b, comp.np, "nom", kein=vg.neg if comp.np is target else None)
    b.tags.add("copula_place")
    return _pp(b, comp.pp, False)  # type: ignore[arg-type]


def _antecedent(b: _Builder, np: NP | None, phrase: _Phrase | None) -> _Ante | None:
    if np is None or phrase is None or np.pronoun or np.wh or np.indefinite:
        return None
    return _Ante(np_gender(b.lex, np), tuple(phrase.en))


def build(sentence: Sentence, lex: Lexicon | None = None) -> Example:
    """Realise a sentence spec in English and German with its gold alignment and
    coreference links."""
    lex = lex or lx.load()
    b = _Builder(lex)
    opener_en: list[int] = []
    opener_de: list[DeTok] = []
    if sentence.phrase is not None:  # "Excuse me, where is the station?"
        phrase = lex.phrase(sentence.phrase)
        opener_en = b.en(*phrase.en)
        opener_de = [
            (w, tuple(opener_en[i] for i in links))
            for w, links in zip(phrase.de, phrase.alignment, strict=True)
        ]
        b.tags.add("set_phrase")
        if not sentence.clauses:
            return _finish(b, opener_en, opener_de, sentence.punct)
        comma = b.en(",")
        opener_en, opener_de = opener_en + comma, opener_de + [(",", tuple(comma))]
    first = sentence.clauses[0]
    en1, de1 = _clause(b, first, "inverted" if sentence.sub_first else "main")
    # the first clause's subject and object are what a later pronoun can stand for
    b.antecedents = {role: ante for role, ante in b.roles.items() if ante is not None}
    en, de = en1, de1
    if sentence.coordinator:
        coord_ids = b.en(sentence.coordinator)
        b.tags.update({"coordination", f"coordination_{sentence.coordinator}"})
        en2, de2 = _clause(b, sentence.clauses[1], "main")
        # "but" takes a comma in both languages (English style guides ask for it too)
        comma = b.en(",") if sentence.coordinator == "but" else []
        en = en1 + comma + coord_ids + en2
        de = de1 + ([(",", tuple(comma))] if comma else [])
        de += [(lx.COORDINATORS[sentence.coordinator], tuple(coord_ids))] + de2
    elif sentence.sub is not None and sentence.conj:
        conj_ids = [] if sentence.that_omitted else b.en(sentence.conj)
        sub = sentence.sub
        de_conj = lx.CONJUNCTIONS[sentence.conj]
        if sentence.conj == "when" and sub.tense == "past":
            de_conj = "als"  # a single event in the past
        b.tags.update({"subordinate", f"subordinate_{de_conj}"})
        sub_en, sub_de = _clause(b, sub, "sub", conj=sentence.conj)
        conj_tok = (de_conj, tuple(conj_ids))
        if sentence.sub_first:
            b.tags.add("subordinate_first")
            comma_en = b.en(",")
            en = conj_ids + sub_en + comma_en + en1
            de = [conj_tok] + sub_de + [(",", tuple(comma_en))] + de1
        else:
            en = en1 + conj_ids + sub_en
            de = de1 + [(",", ()), conj_tok] + sub_de
    return _finish(b, opener_en + en, opener_de + de, sentence.punct)


def _finish(b: _Builder, en: list[int], de: list[DeTok], end: str) -> Example:
    """The sentence's punctuation, capitals and the Example with its alignment."""
    punct = b.en(end)
    en = en + punct
    de = _drop_doubled_commas(de) + [(end, tuple(punct))]
    de = _drop_doubled_commas(de)
    position = {tok_id: pos for pos, tok_id in enumerate(en)}
    words = [b.words[i] for i in en]
    words[0] = words[0][:1].upper() + words[0][1:]
    german = [w for w, _ in de]
    german[0] = german[0][:1].upper() + german[0][1:]
    de_marker = {-1 - link: k for k, (_, links) in enumerate(de) for link in links if link < 0}
    corefs = tuple(
        Coreference(position[p], tuple(sorted(position[i] for i in ante)), de_marker[m])
        for p, ante, m in b.corefs
    )
    return Example(
        english=tuple(words),
        german=tuple(german),
        alignment=tuple(tuple(sorted(position[i] for i in links if i >= 0)) for _, links in de),
        coreference=corefs,
        phenomena=frozenset(b.tags),
    )


def _drop_doubled_commas(de: list[DeTok]) -> list[DeTok]:
    """A relative clause's closing comma goes when punctuation follows it anyway."""
    out: list[DeTok] = []
    for word, links in de:
        if out and out[-1][0] == "," and word in _PUNCT and not out[-1][1]:
            out.pop()
        if out and word == "," and not links and out[-1][0] in _PUNCT:
            continue
        out.append((word, links))
    return out


# ----------------------------------------------------------------- coreference

_THIRD_PERSON = ("it", "he", "she", "they")


def np_classes(lex: Lexicon, np: NP) -> frozenset[str]:
    if np.coord:
        return np_classes(lex, np.coord[0]) & np_classes(lex, np.coord[1])
    if np.name:
        kind = lex.name(np.name).kind
        return frozenset(
            {"person"} if kind == "person" else {"language"} if kind == "language" else {"place"}
        )
    if np.noun:
        return lex.noun(np.noun).classes
    return frozenset()


def _agrees(lex: Lexicon, pronoun: str, np: NP) -> bool:
    """Can this English pronoun stand for this noun phrase?"""
    if np.pronoun or np.wh or np.indefinite:
        return False
    if pronoun == "they":
        return np.plural or np.coord is not None
    if np.plural or np.coord:
        return False
    if np.name:
        name = lex.name(np.name)
        return name.kind == "person" and name.sex == {"he": "m", "she": "f"}.get(pronoun)
    noun = lex.noun(np.noun)  # type: ignore[arg-type]
    if pronoun == "it":
        return "person" not in noun.classes
    sex = {"he": "m", "she": "f"}[pronoun]
    if np.female:
        return sex == "f"
    if sex == "f" and noun.sex == "" and lex.feminine_of(noun.en) is not None:
        return "person" in noun.classes  # v2.1: "the teacher ... she" is die Lehrerin
    return "person" in noun.classes and (noun.sex == sex or (noun.sex == "" and noun.gender == sex))


def slot_classes(lex: Lexicon, c: Clause, slot: str) -> frozenset[str] | None:
    """The noun classes a slot of a clause accepts (None: anything)."""
    if slot == "pp":
        return lex.preposition(c.pp.prep).classes if c.pp else None
    if c.verb is None:
        if slot == "subject" and c.complement and c.complement.adjective:
            return lex.adjective(c.complement.adjective).classes
        return None
    v = lex.verb(c.verb)
    return {"subject": v.subject, "object": v.obj, "iobject": v.iobj}[slot]


def antecedents(lex: Lexicon, first: Clause, pronoun: str, classes: frozenset[str] | None):
    """Roles of the first clause ("subject", "object") that this pronoun, in a slot that
    accepts `classes`, can stand for: gender and number agree, and the meaning fits."""
    candidates = [("subject", first.subject)]
    if first.verb is not None and first.obj is not None:
        candidates.append(("object", first.obj))
    if first.pp is not None:
        candidates.append(("pp", first.pp.np))
    return [
        role
        for role, np in candidates
        if np is not None
        and _agrees(lex, pronoun, np)
        and (classes is None or bool(np_classes(lex, np) & classes))
    ]


def clause_slots(c: Clause) -> list[tuple[str, NP | None]]:
    return [
        ("subject", c.subject),
        ("object", c.obj),
        ("iobject", c.iobj),
        ("pp", c.pp.np if c.pp else None),
    ]


def with_np(c: Clause, slot: str, np: NP) -> Clause:
    if slot == "pp":
        return replace(c, pp=replace(c.pp, np=np))  # type: ignore[arg-type]
    return replace(c, **{{"object": "obj", "iobject": "iobj"}.get(slot, slot): np})


def assign_refs(sentence: Sentence, lex: Lexicon) -> tuple[Sentence, str]:
    """Link each third-person pronoun of the second clause to the noun phrase of the first
    clause it stands for, decided by agreement and meaning (selectional restrictions).
    Returns the sentence and "ok", or "ambiguous" (two readings; the first is taken) or
    "cataphora" (a pronoun in a fronted subordinate clause that could point forward; left
    unlinked). The generator drops sentences that are not "ok". v2.1's agreement of nouns and
    adjectives with what the sentence says follows (corpus/agreement.py)."""
    if sentence.coordinator:
        second, put = sentence.clauses[1], "coord"
    elif sentence.sub is not None:
        second, put = sentence.sub, "sub"
    else:
        return sentence, "ok"
    first = sentence.clauses[0]
    status = "ok"
    found: list[tuple[str, NP, list[str]]] = []
    for slot, np in clause_slots(second):
        if np is None or np.pronoun not in _THIRD_PERSON:
            continue
        roles = antecedents(lex, first, np.pronoun, slot_classes(lex, second, slot))  # type: ignore[arg-type]
        if not roles and lex.version != "v2":
            # v2.1: a reader takes the noun the pronoun agrees with even where the meaning is a
            # stretch ("The table is old, but it is very beautiful.": it is the table, er);
            # v2 wrote the pronoun as if it stood for nothing ("aber es ist sehr schön")
            roles = antecedents(lex, first, np.pronoun, None)  # type: ignore[arg-type]
        if roles:
            found.append((slot, np, roles))
    if lex.version != "v2":
        # two pronouns of one clause are two people ("The doctor helped the man and he
        # thanked her": her is the doctor, so he is the man); v2 left this to chance
        for slot, _, roles in found:
            taken = {r[0] for s, _, r in found if s != slot and len(r) == 1}
            if len(roles) > 1 and set(roles) - taken:
                roles[:] = [r for r in roles if r not in taken]
        # ... and where both can only mean the same noun, the later one is someone else
        # ("The partner left when she waited for him": him is not the partner)
        for k, (_, _, roles) in enumerate(found):
            if len(roles) == 1 and any(r == roles for _, _, r in found[:k]):
                roles.clear()
        found = [f for f in found if f[2]]
    for slot, np, roles in found:
        if sentence.sub_first:
            status = "cataphora"
            continue
        if len(roles) > 1:
            status = "ambiguous"
        second = with_np(second, slot, replace(np, ref=roles[0]))
    if put == "coord":
        return replace(sentence, clauses=(first, second)), status
    return replace(sentence, sub=second), status
