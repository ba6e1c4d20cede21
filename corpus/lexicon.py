"""The lexicon of corpus v2: open word classes read from the data files in corpus/data/
(schema in corpus/data/README.md), closed classes (pronouns, articles, modals, conjunctions,
question words) as tables here, because the grammar's code is written around each of them.

Person indices used throughout: 0=ich/I, 1=du/you, 2=er-sie-es/he-she-it, 3=wir/we,
4=ihr/you all, 5=sie/they.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

DATA_DIR = Path(__file__).parent / "data"

CLASSES = frozenset(
    """person animal plant food drink object furniture vehicle building room place text device
    clothing body abstract time event group material nature fact question game""".split()
)
# Corpus v2.1: classes that only choose a preposition's sense (noun_classes_v2_1.tsv: at the
# station = am Bahnhof, at the party = auf der Party); no sentence is drawn by them, so that v2.1's
# draws stay those of the classes above.
SENSE_CLASSES = frozenset({"site", "gathering", "venue", "instrument"})
# v2.1: the object of a verb (sense) that takes only these classes is said without its article in
# German: "plays the guitar" = "spielt Gitarre" (grammar._clause; play_instrument)
BARE_OBJECT_CLASSES = frozenset({"instrument"})
ANIMATE = frozenset({"person", "animal"})


def _classes(cell: str) -> frozenset[str]:
    words = cell.split()
    out = set()
    for w in words:
        out |= ANIMATE if w == "animate" else {w}
    return frozenset(out)


def read_rows(name: str, data_dir: Path = DATA_DIR) -> Iterator[dict[str, str]]:
    """Rows of one data file as dicts keyed by its header (comment lines skipped)."""
    with open(data_dir / name, encoding="utf-8", newline="") as f:
        lines = (line for line in f if line.strip() and not line.startswith("#"))
        for row in csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE):
            yield {k: (v or "").strip() for k, v in row.items()}


# ------------------------------------------------------------------- open classes


@dataclass(frozen=True)
class Noun:
    en: str
    en_plural: str
    de: str
    gender: str  # m | f | n
    de_plural: str
    de_oblique: str  # accusative/dative singular (differs for weak nouns only)
    de_genitive: str
    sex: str  # m | f | "" (the English word gives the sex: man, mother)
    classes: frozenset[str]
    mass: bool
    key: str = ""  # v2.1: a second sense's name (food_animal = Futter); v2 entries: their en

    @property
    def name(self) -> str:
        return self.key or self.en

    @property
    def de_dative_plural(self) -> str:
        # the dative plural adds -n unless the plural already ends in -n or -s
        p = self.de_plural
        return p if p.endswith(("n", "s")) else p + "n"


@dataclass(frozen=True)
class Verb:
    key: str
    en: str
    en_3sg: str
    en_past: str
    en_participle: str
    en_ing: str
    en_particle: str  # "listen *to* the music"
    de: str  # infinitive with separable prefix
    prefix: str
    de_present: tuple[str, ...]  # six forms of the finite part
    de_preterite: tuple[str, ...]
    de_participle: str
    aux: str  # haben | sein
    de_imperative: str
    frame: str  # intrans | acc | dat | dat_acc | that | prep | adj (v2.1: "looks tired")
    de_object_prep: tuple[str, str] | None  # ("auf", "acc") for frame prep
    subject: frozenset[str]
    obj: frozenset[str]
    iobj: frozenset[str]
    preps: tuple[str, ...]
    motion: bool


@dataclass(frozen=True)
class Adjective:
    en: str
    de: str  # predicative
    de_stem: str  # declension stem
    classes: frozenset[str]
    key: str = ""  # v2.1: a second sense's name (nice_thing = schön); v2 entries: their en

    @property
    def name(self) -> str:
        return self.key or self.en


@dataclass(frozen=True)
class Adverb:
    en: tuple[str, ...]
    de: tuple[str, ...]
    kind: str  # time | frequency | place | manner | sentence
    tenses: frozenset[str]
    front: bool


@dataclass(frozen=True)
class Preposition:
    en: tuple[str, ...]
    de: tuple[str, ...]
    case: str  # acc | dat | gen | two-way
    classes: frozenset[str]
    de_name: str  # before a bare city or country name, when it differs (nach, aus)
    key: str = ""  # v2.1: a second sense's name (at_building = in); v2 entries: their en

    @property
    def name(self) -> str:
        return self.key or " ".join(self.en)


@dataclass(frozen=True)
class Name:
    en: str
    de: str
    kind: str  # person | city | country
    sex: str


@dataclass(frozen=True)
class Phrase:
    """A set phrase said whole (v2.1): "thank you very much" = "vielen Dank"."""

    en: tuple[str, ...]
    de: tuple[str, ...]
    alignment: tuple[tuple[int, ...], ...]  # per German token: indices into `en`
    punct: frozenset[str]  # the marks it may end with


@dataclass(frozen=True)
class Grades:
    """An adjective's comparative and superlative (v2.1): bigger = größer, biggest = größt."""

    en: str
    en_comparative: tuple[str, ...]  # ("bigger",) or ("more", "interesting")
    en_superlative: tuple[str, ...]
    de_comparative: str
    de_superlative: str  # stem: der größte, am größten


@dataclass(frozen=True)
class NounSense:
    """v2.1: a second sense of a noun (noun_senses_v2_1.tsv), taken where its sentence says so:
    for an object, the one it is for is of `whose` classes (the dog's food = Futter); for a
    subject, its verb is one of `verbs` (the lesson starts = der Unterricht); after one of
    `preps` (during the lesson = während des Unterrichts)."""

    sense_of: str
    noun: Noun
    whose: frozenset[str]
    verbs: frozenset[str]
    preps: frozenset[str]


@dataclass(frozen=True, eq=False)  # hashed by identity: loaded once, a key of caches
class Lexicon:
    nouns: tuple[Noun, ...]
    verbs: tuple[Verb, ...]
    adjectives: tuple[Adjective, ...]
    adverbs: tuple[Adverb, ...]
    prepositions: tuple[Preposition, ...]
    names: tuple[Name, ...]
    # corpus v2.1 (`load_version`): the feminine form of a person noun, by its English word
    # (teacher -> Lehrerin), and the version whose words these are; v2 has no feminine forms
    feminine: tuple[Noun, ...] = ()
    phrases: tuple[Phrase, ...] = ()  # v2.1's set phrases of a first lesson
    grades: tuple[Grades, ...] = ()  # v2.1's comparatives and superlatives
    version: str = "v2"
    # v2.1: second senses of a verb (watch_show = sehen) and of a preposition (at_building = in),
    # each taken where the sentence's nouns fit it (corpus/agreement.py); never drawn or read
    # on their own, so they are not among `verbs` and `prepositions`
    verb_senses: tuple[tuple[str, Verb], ...] = ()  # (the first sense's key, the sense)
    preposition_senses: tuple[Preposition, ...] = ()
    noun_senses: tuple[NounSense, ...] = ()  # v2.1: food_animal = Futter, lesson_class

    def __post_init__(self) -> None:
        index = {
            "noun": {n.en: n for n in self.nouns} | {s.noun.key: s.noun for s in self.noun_senses},
            "verb": {v.key: v for v in (*self.verbs, *(v for _, v in self.verb_senses))},
            "adjective": {a.name: a for a in self.adjectives},
            "adverb": {" ".join(a.en): a for a in self.adverbs},
            "preposition": {p.name: p for p in (*self.prepositions, *self.preposition_senses)},
            "name": {n.en: n for n in self.names},
            "feminine": {n.en: n for n in self.feminine},
            "phrase": {" ".join(p.en): p for p in self.phrases},
            "grades": {g.en: g for g in self.grades},
        }
        object.__setattr__(self, "_index", index)

    def noun(self, en: str) -> Noun:
        return self._index["noun"][en]  # type: ignore[attr-defined]

    def verb(self, key: str) -> Verb:
        return self._index["verb"][key]  # type: ignore[attr-defined]

    def adjective(self, en: str) -> Adjective:
        return self._index["adjective"][en]  # type: ignore[attr-defined]

    def adverb(self, en: str) -> Adverb:
        return self._index["adverb"][en]  # type: ignore[attr-defined]

    def preposition(self, en: str) -> Preposition:
        return self._index["preposition"][en]  # type: ignore[attr-defined]

    def name(self, en: str) -> Name:
        return self._index["name"][en]  # type: ignore[attr-defined]

    def senses_of_verb(self, key: str) -> list[Verb]:
        """v2.1: the second senses of a verb, in the order of verb_senses_v2_1.tsv."""
        return [v for first, v in self.verb_senses if first == key]

    def senses_of_noun(self, en: str) -> list[NounSense]:
        """v2.1: the second senses of a noun, in the order of noun_senses_v2_1.tsv."""
        return [s for s in self.noun_senses if s.sense_of == en]

    def senses_of_preposition(self, key: str) -> list[Preposition]:
        """v2.1: the second senses of a preposition, in the order of prepositions_v2_1.tsv."""
        return [p for p in self.preposition_senses if " ".join(p.en) == key]

    def grades_of(self, en: str) -> Grades:
        return self._index["grades"][en]  # type: ignore[attr-defined]

    def phrase(self, en: str) -> Phrase:
        return self._index["phrase"][en]  # type: ignore[attr-defined]

    def feminine_of(self, en: str) -> Noun | None:
        """The feminine noun for a person noun (teacher -> Lehrerin), None if it has none."""
        return self._index["feminine"].get(en)  # type: ignore[attr-defined]


def _noun(r: dict[str, str]) -> Noun:
    return Noun(
        en=r["en"],
        en_plural=r["en_plural"] or r["en"],
        de=r["de"],
        gender=r["gender"],
        de_plural=r["de_plural"] or r["de"],
        de_oblique=r["de_oblique"] or r["de"],
        de_genitive=r["de_genitive"] or r["de"],
        sex=r["sex"],
        classes=_classes(r["classes"]),
        mass=r["mass"] == "1",
    )


def _verb(r: dict[str, str]) -> Verb:
    prep = r["de_object_prep"].split()
    return Verb(
        key=r["key"],
        en=r["en"],
        en_3sg=r["en_3sg"],
        en_past=r["en_past"],
        en_participle=r["en_participle"],
        en_ing=r["en_ing"],
        en_particle=r["en_particle"],
        de=r["de"],
        prefix=r["prefix"],
        de_present=tuple(r["de_present"].split()),
        de_preterite=tuple(r["de_preterite"].split()),
        de_participle=r["de_participle"],
        aux=r["aux"],
        de_imperative=r["de_imperative"],
        frame=r["frame"],
        de_object_prep=(prep[0], prep[1]) if len(prep) == 2 else None,
        subject=_classes(r["subject"]),
        obj=_classes(r["object"]),
        iobj=_classes(r["iobject"]),
        preps=tuple(p.replace("_", " ") for p in _split_preps(r["preps"])),
        motion=r["motion"] == "1",
    )


_MULTIWORD_PREPS = ("in front of", "next to", "out of", "because of", "instead of")


def _split_preps(cell: str) -> list[str]:
    """The preps cell lists keys separated by spaces; multi-word keys are recognised whole."""
    for multi in _MULTIWORD_PREPS:
        cell = cell.replace(multi, multi.replace(" ", "_"))
    return cell.split()


def _adverbs(name: str, data_dir: Path) -> tuple[Adverb, ...]:
    return tuple(
        Adverb(
            tuple(r["en"].split()),
            tuple(r["de"].split()),
            r["kind"],
            frozenset(r["tenses"].split()),
            r["front"] == "1",
        )
        for r in read_rows(name, data_dir)
    )


def _prepositions(name: str, data_dir: Path) -> tuple[Preposition, ...]:
    return tuple(
        Preposition(
            tuple(r["en"].split()),
            tuple(r["de"].split()),
            r["case"],
            _classes(r["classes"]),
            r["de_name"],
            r.get("key", ""),
        )
        for r in read_rows(name, data_dir)
    )


@cache
def load(data_dir: Path = DATA_DIR) -> Lexicon:
    nouns = tuple(_noun(r) for r in read_rows("nouns.tsv", data_dir))
    verbs = tuple(_verb(r) for r in read_rows("verbs.tsv", data_dir))
    adjectives = tuple(
        Adjective(r["en"], r["de"], r["de_attributive"] or r["de"], _classes(r["classes"]))
        for r in read_rows("adjectives.tsv", data_dir)
    )
    adverbs = _adverbs("adverbs.tsv", data_dir)
    prepositions = _prepositions("prepositions.tsv", data_dir)
    names = tuple(
        Name(r["en"], r["de"], r["kind"], r["sex"]) for r in read_rows("names.tsv", data_dir)
    )
    return Lexicon(nouns, verbs, adjectives, adverbs, prepositions, names)


VERSIONS = ("v2", "v2.1")
LATEST = "v2.1"


@cache
def load_version(version: str = "v2", data_dir: Path = DATA_DIR) -> Lexicon:
    """The lexicon of one corpus version. v2 is `load()` unchanged: the shipped model's
    held-out figures are drawn from it. v2.1 adds the rows of the `*_v2_1.tsv` files, after
    v2's, so that no v2 draw sees them (corpus/data/README.md)."""
    base = load(data_dir)
    if version == "v2":
        return base
    if version != "v2.1":
        raise ValueError(f"unknown corpus version {version!r}; known: {VERSIONS}")
    adverbs = _adverbs("adverbs_v2_1.tsv", data_dir)
    feminine = tuple(
        replace(
            base.noun(r["en"]),
            de=r["de"],
            gender="f",
            de_plural=r["de_plural"],
            de_oblique=r["de"],
            de_genitive=r["de"],
            sex="f",
        )
        for r in read_rows("feminine_v2_1.tsv", data_dir)
    )
    phrases = tuple(
        Phrase(
            tuple(r["en"].split()),
            tuple(r["de"].split()),
            tuple(
                tuple(int(i) for i in cell.split(",")) if cell != "-" else ()
                for cell in r["alignment"].split()
            ),
            frozenset(r["punct"].split()),
        )
        for r in read_rows("phrases_v2_1.tsv", data_dir)
    )
    grades = tuple(
        Grades(
            r["en"],
            tuple(r["en_comparative"].split()),
            tuple(r["en_superlative"].split()),
            r["de_comparative"],
            r["de_superlative"],
        )
        for r in read_rows("comparison_v2_1.tsv", data_dir)
    )
    verbs = tuple(_verb(r) for r in read_rows("verbs_v2_1.tsv", data_dir))
    senses = tuple(
        Adjective(
            r["en"], r["de"], r["de_attributive"] or r["de"], _classes(r["classes"]), r["key"]
        )
        for r in read_rows("adjectives_v2_1.tsv", data_dir)
    )
    nouns = tuple(_noun(r) for r in read_rows("nouns_v2_1.tsv", data_dir))
    more = {r["en"]: _classes(r["classes"]) for r in read_rows("noun_classes_v2_1.tsv", data_dir)}
    reclassed = tuple(
        replace(n, classes=n.classes | more.get(n.en, frozenset())) for n in base.nouns
    )
    first = {n.en: n for n in reclassed}
    noun_senses = tuple(
        NounSense(
            r["sense_of"],
            replace(
                first[r["sense_of"]],
                key=r["key"],
                de=r["de"],
                gender=r["gender"],
                de_plural=r["de_plural"] or r["de"],
                de_oblique=r["de_oblique"] or r["de"],
                de_genitive=r["de_genitive"] or r["de"],
                mass=r["mass"] == "1",
            ),
            _classes(r["whose"]),
            frozenset(r["verbs"].split()),
            frozenset(r["preps"].split()),
        )
        for r in read_rows("noun_senses_v2_1.tsv", data_dir)
    )
    return replace(
        base,
        nouns=reclassed + nouns,
        verbs=base.verbs + verbs,
        names=base.names
        + tuple(
            Name(r["en"], r["de"], r["kind"], r["sex"])
            for r in read_rows("names_v2_1.tsv", data_dir)
        ),
        adjectives=base.adjectives + senses,
        adverbs=base.adverbs + adverbs,
        feminine=feminine,
        phrases=phrases,
        grades=grades,
        version=version,
        verb_senses=tuple(
            (r["sense_of"], _verb(r)) for r in read_rows("verb_senses_v2_1.tsv", data_dir)
        ),
        preposition_senses=_prepositions("prepositions_v2_1.tsv", data_dir),
        noun_senses=noun_senses,
    )


# ----------------------------------------------------------------- closed classes


@dataclass(frozen=True)
class Pronoun:
    key: str
    person: int
    en_subject: str
    en_object: str
    de_nom: str
    de_acc: str
    de_dat: str
    en_possessive: str  # "" if none in the grammar
    de_possessive: str  # ein-word stem


PRONOUNS: tuple[Pronoun, ...] = (
    Pronoun("i", 0, "I", "me", "ich", "mich", "mir", "my", "mein"),
    Pronoun("you", 1, "you", "you", "du", "dich", "dir", "your", "dein"),
    Pronoun("he", 2, "he", "him", "er", "ihn", "ihm", "his", "sein"),
    Pronoun("she", 2, "she", "her", "sie", "sie", "ihr", "her", "ihr"),
    Pronoun("it", 2, "it", "it", "es", "es", "ihm", "", ""),
    Pronoun("we", 3, "we", "us", "wir", "uns", "uns", "our", "unser"),
    Pronoun("you_all", 4, "you all", "you all", "ihr", "euch", "euch", "", ""),
    Pronoun("they", 5, "they", "them", "sie", "sie", "ihnen", "their", "ihr"),
)
PRONOUN_BY_KEY = {p.key: p for p in PRONOUNS}
POSSESSIVES = tuple(p for p in PRONOUNS if p.en_possessive)

# Third-person pronouns by the German gender (or plural) of what they stand for.
PERSONAL_3RD = {  # gender -> nom, acc, dat
    "m": ("er", "ihn", "ihm"),
    "f": ("sie", "sie", "ihr"),
    "n": ("es", "es", "ihm"),
    "pl": ("sie", "sie", "ihnen"),
}

DEF_ARTICLE = {
    "nom": {"m": "der", "f": "die", "n": "das", "pl": "die"},
    "acc": {"m": "den", "f": "die", "n": "das", "pl": "die"},
    "dat": {"m": "dem", "f": "der", "n": "dem", "pl": "den"},
    "gen": {"m": "des", "f": "der", "n": "des", "pl": "der"},
}
# der-words (dieser) take the article's endings
DER_ENDING = {
    "nom": {"m": "er", "f": "e", "n": "es", "pl": "e"},
    "acc": {"m": "en", "f": "e", "n": "es", "pl": "e"},
    "dat": {"m": "em", "f": "er", "n": "em", "pl": "en"},
    "gen": {"m": "es", "f": "er", "n": "es", "pl": "er"},
}
RELATIVE = {  # relative pronoun by case and gender
    "nom": {"m": "der", "f": "die", "n": "das", "pl": "die"},
    "acc": {"m": "den", "f": "die", "n": "das", "pl": "die"},
    "dat": {"m": "dem", "f": "der", "n": "dem", "pl": "denen"},
}
EIN_ENDING = {  # ein, kein, mein ...
    "nom": {"m": "", "f": "e", "n": "", "pl": "e"},
    "acc": {"m": "en", "f": "e", "n": "", "pl": "e"},
    "dat": {"m": "em", "f": "er", "n": "em", "pl": "en"},
    "gen": {"m": "es", "f": "er", "n": "es", "pl": "er"},
}
WEAK = {  # adjective after der/die/das, dieser, and after ein-words in the plural
    "nom": {"m": "e", "f": "e", "n": "e", "pl": "en"},
    "acc": {"m": "en", "f": "e", "n": "e", "pl": "en"},
    "dat": {"m": "en", "f": "en", "n": "en", "pl": "en"},
    "gen": {"m": "en", "f": "en", "n": "en", "pl": "en"},
}
MIXED = {  # adjective after ein-words in the singular
    "nom": {"m": "er", "f": "e", "n": "es"},
    "acc": {"m": "en", "f": "e", "n": "es"},
    "dat": {"m": "en", "f": "en", "n": "en"},
    "gen": {"m": "en", "f": "en", "n": "en"},
}
STRONG = {  # adjective with no article (bare plurals, mass nouns, after numbers)
    "nom": {"m": "er", "f": "e", "n": "es", "pl": "e"},
    "acc": {"m": "en", "f": "e", "n": "es", "pl": "e"},
    "dat": {"m": "em", "f": "er", "n": "em", "pl": "en"},
    "gen": {"m": "en", "f": "er", "n": "en", "pl": "er"},
}
# preposition + definite article, always contracted where German does
CONTRACTIONS = {
    ("zu", "dem"): "zum",
    ("zu", "der"): "zur",
    ("in", "dem"): "im",
    ("in", "das"): "ins",
    ("an", "dem"): "am",
    ("an", "das"): "ans",
    ("von", "dem"): "vom",
    ("bei", "dem"): "beim",
}

NUMBER_WORDS = {
    "one": "ein",
    "two": "zwei",
    "three": "drei",
    "four": "vier",
    "five": "fünf",
    "six": "sechs",
    "seven": "sieben",
    "eight": "acht",
    "nine": "neun",
    "ten": "zehn",
    "eleven": "elf",
    "twelve": "zwölf",
}

# Corpus v2.1: more number words (v2 draws from NUMBER_WORDS alone).
NUMBER_WORDS_V2_1 = {
    "thirteen": "dreizehn",
    "fourteen": "vierzehn",
    "fifteen": "fünfzehn",
    "sixteen": "sechzehn",
    "seventeen": "siebzehn",
    "eighteen": "achtzehn",
    "nineteen": "neunzehn",
    "twenty": "zwanzig",
    "thirty": "dreißig",
    "forty": "vierzig",
    "fifty": "fünfzig",
    "sixty": "sechzig",
    "seventy": "siebzig",
    "eighty": "achtzig",
    "ninety": "neunzig",
}
ALL_NUMBER_WORDS = NUMBER_WORDS | NUMBER_WORDS_V2_1

SEIN = {
    "present": ("bin", "bist", "ist", "sind", "seid", "sind"),
    "past": ("war", "warst", "war", "waren", "wart", "waren"),
    "participle": "gewesen",
}
HABEN = {
    "present": ("habe", "hast", "hat", "haben", "habt", "haben"),
    "past": ("hatte", "hattest", "hatte", "hatten", "hattet", "hatten"),
}
WERDEN = ("werde", "wirst", "wird", "werden", "werdet", "werden")
GEBEN = {"present": "gibt", "past": "gab"}
EN_BE = {
    "present": ("am", "are", "is", "are", "are", "are"),
    "past": ("was", "were", "was", "were", "were", "were"),
}


@dataclass(frozen=True)
class Modal:
    key: str
    en: str
    de_present: tuple[str, ...]
    de_negated: tuple[str, ...]  # "must not" = "darf nicht"


MODALS: tuple[Modal, ...] = (
    Modal("can", "can", ("kann", "kannst", "kann", "können", "könnt", "können"), ()),
    Modal(
        "must",
        "must",
        ("muss", "musst", "muss", "müssen", "müsst", "müssen"),
        ("darf", "darfst", "darf", "dürfen", "dürft", "dürfen"),
    ),
    Modal("want", "want", ("will", "willst", "will", "wollen", "wollt", "wollen"), ()),
)
# v2.1: "have to" = müssen; "doesn't have to" = "muss nicht" (where "must not" = "darf nicht")
HAVE_TO = Modal("have", "have", ("muss", "musst", "muss", "müssen", "müsst", "müssen"), ())
MODAL_BY_KEY = {m.key: m for m in (*MODALS, HAVE_TO)}


def modals(lex: Lexicon) -> tuple[Modal, ...]:
    """The modals a corpus version draws and reads (v2's three, so that v2 stays as it was)."""
    return MODALS if lex.version == "v2" else (*MODALS, HAVE_TO)


# "could" is the past of "can" (konnte); the other modals stay in the present.
COULD = ("konnte", "konntest", "konnte", "konnten", "konntet", "konnten")

# English verbs that do not take the progressive ("*is knowing").
STATIVE = frozenset(
    """know know_that like love hate have believe hope think understand remember need own
    belong seem mean prefer want see hear cost contain forget agree know_fact""".split()
)
# Transitive verbs whose object English and German may leave out ("The children are eating").
OBJECT_OPTIONAL = frozenset(
    """eat drink read write cook paint draw wash clean win lose pay wait help learn study
    listen understand call answer ask watch sing""".split()
)

# Corpus v2.1: indefinite pronouns ("anything"/"anybody" only under negation: nichts, niemand).
INDEFINITE = {
    "nothing": "nichts",
    "nobody": "niemand",
    "something": "etwas",
    "somebody": "jemand",
    "someone": "jemand",
    "anything": "etwas",
    "anybody": "jemand",
    "anyone": "jemand",
}

# Corpus v2.1: adjectives whose comparison also says how one does a thing ("runs faster than
# Paul" = "läuft schneller als Paul", "sings better" = "singt besser").
ADVERBIAL_GRADES = frozenset({"fast", "slow", "good", "loud", "high"})

# Corpus v2.1: "this"/"that" standing alone before the copula: das ("That is a good idea.").
DEMONSTRATIVE = {"this": "das", "that": "das"}

# Corpus v2.1: a person's feeling said with a dative (I am cold = mir ist kalt) or with haben
# and a noun (I am hungry = ich habe Hunger).
DATIVE_ADJECTIVES = {"cold": "kalt", "warm": "warm", "hot": "heiß", "bored": "langweilig"}
# (a noun is negated with kein: keinen Hunger; "recht" with nicht: du hast nicht recht)
HAVE_NOUNS = {"hungry": "Hunger", "thirsty": "Durst", "right": "recht"}
# ... and a person or a vehicle that "is late" has a delay: "Der Zug hatte Verspätung." (the
# adverb late, not an adjective: "it is late" stays "es ist spät")
DELAY = "Verspätung"

# Corpus v2.1: "My name is Paul." = "Ich heiße Paul.", for these owners of a name.
NAMED = ("i", "you", "he", "she")
HEISSEN = {
    "present": ("heiße", "heißt", "heißt", "heißen", "heißt", "heißen"),
    "past": ("hieß", "hießt", "hieß", "hießen", "hießt", "hießen"),
}

# Corpus v2.1: verbs of motion whose "in", "on", "at" + a place say where one moves about, not
# where to (swims on the lake = schwimmt auf dem See); "put", "throw", "fall" on the table go there.
MOVING_ABOUT = frozenset("go walk run drive travel ride fly swim hike".split())

# Corpus v2.1: a place adverb after a verb that goes somewhere says where to (grammar._clause):
# "wants to go outside" = "will nach draußen gehen", "came here" = "kam hierher".
GOAL_OF_PLACE = {
    "here": ("hierher",),
    "there": ("dorthin",),
    "outside": ("nach", "draußen"),
    "inside": ("nach", "drinnen"),
    "upstairs": ("nach", "oben"),
    "downstairs": ("nach", "unten"),
}

# Corpus v2.1: verbs that are gehen on foot, said "zu Fuß" where they go somewhere (a goal, or
# "to"): "I walk to work" = "Ich gehe zu Fuß zur Arbeit"; "walks in the park" = "geht im Park".
ON_FOOT = frozenset({"walk"})

# Corpus v2.1: verb senses taken by where the verb goes (verb_senses_v2_1.tsv), not by their
# slots: after "to" or "into", a name of one of these kinds (names.tsv) ("went to Paris" = "fuhren
# nach Paris", "goes to Germany" = "fährt nach Deutschland"); "goes to school", "to the station",
# "home" stay gehen.
GOAL_KINDS = {"go_far": frozenset({"city", "country"})}
GOAL_PREPOSITIONS = frozenset({"to", "into"})

# Corpus v2.1: verbs of frame acc whose "to" + person is a German dative, as for the dat_acc
# verbs ("writes a letter to her father" = "schreibt ihrem Vater einen Brief").
DATIVE_TO = frozenset("write explain describe sell recommend".split())
DATIVE_TO_CLASSES = frozenset({"person", "group"})

# Subordinating conjunctions; "when" is "als" for a single event in the past.
CONJUNCTIONS = {
    "that": "dass",
    "because": "weil",
    "if": "wenn",
    "when": "wenn",
    "although": "obwohl",
    "before": "bevor",
    "after": "nachdem",
}
COORDINATORS = {"and": "und", "but": "aber", "or": "oder"}
WH_ADVERBS = {"where": "wo", "when": "wann", "why": "warum", "how": "wie"}
DEGREE = {"very": "sehr", "too": "zu"}
