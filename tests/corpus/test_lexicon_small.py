"""The small lexicon files of corpus v2: adjectives, adverbs, prepositions, names.

The formats, the semantic classes and the preposition inventory come from corpus/data/README.md
(parsed in tests/corpus/readme.py, so the files and the README cannot drift apart). Independent evidence: English
parts of speech from lemminflect, German word forms and name frequencies from wordfreq, and the
German prepositions' cases from a table of German grammar written out below.
"""

from __future__ import annotations

import csv
import re
from functools import cache
from pathlib import Path

import lemminflect
import pytest
import wordfreq

from tests.corpus.readme import readme_classes, readme_header, readme_inventory

DATA = Path(__file__).resolve().parents[2] / "corpus" / "data"

TENSES = {"present", "past", "perfect", "future", "progressive"}
ADVERB_KINDS = {"time", "frequency", "place", "manner", "sentence"}
CASES = {"acc", "dat", "gen", "two-way"}
NAME_KINDS = {"person", "city", "country"}


# ------------------------------------------------------------------ reading


@cache
def read(name: str) -> tuple[tuple[str, ...], tuple[dict[str, str], ...]]:
    """(header, rows) of a data file; comment lines skipped, every row checked for its cell count."""
    with open(DATA / name, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    assert lines[0] and not lines[0].startswith("#"), f"{name}: the header line must come first"
    body = [line for line in lines if line.strip() and not line.startswith("#")]
    table = list(csv.reader(body, delimiter="\t", quoting=csv.QUOTE_NONE))
    header = tuple(table[0])
    rows = []
    for i, cells in enumerate(table[1:], 2):
        assert len(cells) == len(header), f"{name} data row {i}: {len(cells)} cells: {cells}"
        for cell in cells:
            assert cell == cell.strip(), f"{name} row {i}: stray whitespace in {cell!r}"
            assert "  " not in cell, f"{name} row {i}: double space in {cell!r}"
            assert cell not in ("-", "None", "none", "null"), f"{name} row {i}: {cell!r}"
        rows.append(dict(zip(header, cells, strict=True)))
    return header, tuple(rows)


def rows(name: str) -> tuple[dict[str, str], ...]:
    return read(name)[1]


def classes(cell: str) -> set[str]:
    words = cell.split()
    out = set()
    for w in words:
        out |= {"person", "animal"} if w == "animate" else {w}
    return out


def check_classes(cell: str, what: str) -> None:
    words = cell.split()
    assert words, f"{what}: no classes"
    assert len(words) == len(set(words)), f"{what}: repeated class in {cell!r}"
    unknown = set(words) - readme_classes() - {"animate"}
    assert not unknown, f"{what}: classes not in the README: {sorted(unknown)}"


def zipf(word: str, lang: str) -> float:
    return wordfreq.zipf_frequency(word, lang)


@cache
def en_rank() -> dict[str, int]:
    return {w: i for i, w in enumerate(wordfreq.top_n_list("en", 30000))}


@pytest.mark.parametrize("name", ["adjectives.tsv", "adverbs.tsv", "prepositions.tsv", "names.tsv"])
def test_header_matches_readme(name):
    assert tuple(read(name)[0]) == readme_header(name)


def test_readme_parses():
    # guards the parsers above: a README reworded beyond recognition must not make tests vacuous
    assert {"person", "animal", "place", "nature", "food", "drink", "time"} <= readme_classes()
    assert len(readme_classes()) == 28  # v2.1: site, gathering (at = an, auf), venue, instrument
    assert {"in", "in front of", "towards", "because of"} <= set(readme_inventory())
    assert len(readme_inventory()) == len(set(readme_inventory())) >= 40


# ------------------------------------------------------------------ adjectives

REQUIRED_ADJECTIVES = """small big old new young good bad happy sad tired hungry thirsty nice
friendly clever strong weak sick famous funny fast slow red blue green yellow black white brown
expensive cheap heavy light empty full dirty clean long short wide narrow high deep interesting
boring quiet loud warm hot cold fresh beautiful ugly dark bright rich poor busy angry kind brave
lazy hard soft easy difficult dangerous safe sweet sour delicious""".split()

# determiner-like, predicative-only, or nationality words: never in adjectives.tsv
EXCLUDED_ADJECTIVES = """own other same such only last next many much few little several whole
certain various afraid alone asleep awake alive aware glad sorry ready sure able unable likely
english german french american british italian spanish european chinese japanese russian
african canadian australian irish scottish""".split()

# English adjectives lemminflect does not list as a plain (JJ) adjective, with the reason they are
# kept anyway. Empty: every adjective in the file passes.
ADJECTIVE_ALLOW: dict[str, str] = {}

# Selectional contracts. The grammar builds pronoun examples in which only the adjective says
# which noun a pronoun refers to, so these must not leak into other classes.
ANIMATE = {"person", "animal"}
CONTRACTS: dict[str, set[str]] = {
    **dict.fromkeys(
        """tired hungry thirsty sleepy angry happy sad brave lazy sick nervous jealous shy curious
        excited worried proud furious unhappy anxious friendly nice clever""".split(),
        ANIMATE,
    ),
    **dict.fromkeys("wide narrow deep crowded busy broad steep".split(), {"place", "nature"}),
    **dict.fromkeys("hot cold warm cool".split(), {"food", "drink", "room"}),
    **dict.fromkeys(
        "delicious sweet sour fresh tasty bitter spicy disgusting".split(), {"food", "drink"}
    ),
    "heavy": {"object", "furniture", "vehicle", "device", "food"},  # the apple was too heavy
    "light": {"object", "furniture", "vehicle", "device", "clothing"},
    **dict.fromkeys(
        "expensive cheap affordable".split(),
        {"object", "vehicle", "device", "clothing", "furniture", "food", "drink", "building"},
    ),
}
# adjectives that must describe people (and so must not be restricted to things)
MUST_TAKE_PERSON = "tired hungry happy sad angry friendly poor rich old young famous".split()


def expected_stem(de: str) -> str:
    """The German declension stem by rule: hoch -> hoh; a final -e drops (müde -> müd); -el loses
    its e (dunkel -> dunkl); -er after the diphthongs au/eu loses its e (teuer -> teur)."""
    if de == "hoch":
        return "hoh"
    if de.endswith("e"):
        return de[:-1]
    if de.endswith("el"):
        return de[:-2] + "l"
    if de.endswith(("auer", "euer")):
        return de[:-2] + "r"
    return de


def adjective_problems(row: dict[str, str]) -> list[str]:
    """Everything wrong with one adjectives.tsv row (empty list: fine)."""
    en, de, attr = row["en"], row["de"], row["de_attributive"]
    out = []
    if not re.fullmatch(r"[a-z]+", en):
        out.append(f"{en!r}: the English adjective must be one lower-case word")
    if not re.fullmatch(r"[a-zäöüß]+", de):
        out.append(f"{en}: German {de!r} must be one lower-case word")
    if attr == de:
        out.append(f"{en}: de_attributive repeats de; leave it empty")
    if (attr or de) != expected_stem(de):
        out.append(f"{en}: stem of {de!r} is {expected_stem(de)!r}, not {(attr or de)!r}")
    if de.endswith("a"):
        out.append(f"{en}: {de!r} is an indeclinable colour/adjective (lila, rosa, prima)")
    allowed = CONTRACTS.get(en)
    if allowed is not None and not classes(row["classes"]) <= allowed:
        extra = sorted(classes(row["classes"]) - allowed)
        out.append(f"{en}: classes {extra} break its contract {sorted(allowed)}")
    return out


def test_adjectives_format_and_count():
    adjs = rows("adjectives.tsv")
    assert len(adjs) >= 250
    ens = [r["en"] for r in adjs]
    assert len(ens) == len(set(ens)), "duplicate English adjectives"
    for r in adjs:
        check_classes(r["classes"], r["en"])
    problems = [p for r in adjs for p in adjective_problems(r)]
    assert not problems, "\n".join(problems)


def test_adjectives_required_and_excluded():
    ens = {r["en"] for r in rows("adjectives.tsv")}
    assert not set(REQUIRED_ADJECTIVES) - ens, sorted(set(REQUIRED_ADJECTIVES) - ens)
    assert not set(EXCLUDED_ADJECTIVES) & ens, sorted(set(EXCLUDED_ADJECTIVES) & ens)
    assert set(CONTRACTS) <= ens, sorted(set(CONTRACTS) - ens)  # contracts are not vacuous


def test_adjectives_in_wordfreq_order():
    rank = en_rank()
    ens = [r["en"] for r in rows("adjectives.tsv")]
    missing = [w for w in ens if w not in rank]
    assert not missing, f"not among the 30000 most frequent English words: {missing}"
    out_of_order = [(a, b) for a, b in zip(ens, ens[1:]) if rank[a] > rank[b]]
    assert not out_of_order, out_of_order[:10]


def test_adjectives_are_english_adjectives():
    bad = []
    for r in rows("adjectives.tsv"):
        w = r["en"]
        if w in ADJECTIVE_ALLOW:
            continue
        plain = lemminflect.getAllInflections(w, upos="ADJ").get("JJ", ())
        lemmas = lemminflect.getAllLemmas(w, upos="ADJ").get("ADJ", ())
        # a plain adjective whose only adjective lemma is itself: no comparatives/superlatives
        if w not in plain or lemmas != (w,):
            bad.append((w, plain, lemmas))
    assert not bad, bad
    stale = set(ADJECTIVE_ALLOW) - {r["en"] for r in rows("adjectives.tsv")}
    assert not stale, f"allow-list entries not in the file: {stale}"


def test_adjectives_german_forms_exist():
    """German uses the predicative form and the declined forms built on the stem, and prefers
    the stem's forms to those of the unreduced word (hohen over hochen, teuren over teueren)."""
    bad = []
    for r in rows("adjectives.tsv"):
        de, stem = r["de"], r["de_attributive"] or r["de"]
        declined = max(zipf(stem + "e", "de"), zipf(stem + "en", "de"))
        if zipf(de, "de") < 1.5 or declined < 1.5:
            bad.append((r["en"], de, stem, zipf(de, "de"), declined))
        elif r["de_attributive"] and zipf(stem + "en", "de") <= zipf(de + "en", "de"):
            bad.append((r["en"], de, stem, "unreduced form is as frequent"))
    assert not bad, bad


def test_adjective_contracts_take_people_where_they_should():
    by_en = {r["en"]: r for r in rows("adjectives.tsv")}
    for en in MUST_TAKE_PERSON:
        assert "person" in classes(by_en[en]["classes"]), en
    # the opposite direction: nothing that only describes places or food may describe people
    for en, allowed in CONTRACTS.items():
        if not allowed & ANIMATE:
            assert not classes(by_en[en]["classes"]) & ANIMATE, en


@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        (
            {"en": "tired", "de": "müde", "de_attributive": "müd", "classes": "person object"},
            "contract",
        ),
        (
            {"en": "wide", "de": "breit", "de_attributive": "", "classes": "place person"},
            "contract",
        ),
        ({"en": "hot", "de": "heiß", "de_attributive": "", "classes": "food person"}, "contract"),
        ({"en": "expensive", "de": "teuer", "de_attributive": "", "classes": "object"}, "stem"),
        ({"en": "high", "de": "hoch", "de_attributive": "", "classes": "building"}, "stem"),
        ({"en": "dark", "de": "dunkel", "de_attributive": "dunkel", "classes": "room"}, "repeats"),
        ({"en": "red", "de": "rot", "de_attributive": "rote", "classes": "object"}, "stem"),
        (
            {"en": "pink", "de": "rosa", "de_attributive": "ros", "classes": "object"},
            "indeclinable",
        ),
        ({"en": "Big", "de": "Groß", "de_attributive": "", "classes": "object"}, "lower-case"),
    ],
)
def test_adjective_checker_catches(row, fragment):
    # the row checker used above does reject broken rows
    assert any(fragment in p for p in adjective_problems(row)), adjective_problems(row)


def test_adjective_checker_passes_good_rows():
    for row in (
        {"en": "tired", "de": "müde", "de_attributive": "müd", "classes": "person animal"},
        {"en": "sour", "de": "sauer", "de_attributive": "saur", "classes": "food drink"},
        {"en": "clean", "de": "sauber", "de_attributive": "", "classes": "room"},
    ):
        assert adjective_problems(row) == [], row


# ------------------------------------------------------------------ adverbs

REQUIRED_ADVERBS = (
    """today yesterday tomorrow now then soon already later early late often
always never sometimes usually rarely again here there outside inside upstairs downstairs
everywhere quickly slowly carefully quietly loudly well badly together alone happily
unfortunately fortunately maybe perhaps probably finally certainly""".split()
    + [
        "every day",
        "last week",
        "at home",
        "in the morning",
    ]
)
WEEKDAYS = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
# single-word English adverbs lemminflect does not list as ADV, with the reason they are kept
ADVERB_ALLOW = {
    "inside": "lemminflect lists it as ADJ/NOUN only; 'play inside' is the adverb",
    "nearby": "lemminflect lists it as ADJ only; 'they live nearby' is the adverb",
}
# English word orders that cannot start the sentence without inversion or awkwardness
NEVER_FRONT = {"always", "never", "rarely", "seldom", "well", "badly", "already", "still"}
MUST_FRONT = {"today", "yesterday", "tomorrow", "unfortunately", "maybe", "perhaps", "sometimes"}


def adverb_tense_problems(row: dict[str, str]) -> list[str]:
    """Tenses that contradict the adverb's time reference."""
    en, tenses = row["en"], set(row["tenses"].split())
    words = set(en.split())
    out = []
    period = r"(week|month|year|night|weekend|morning|evening)"
    past = words & {"yesterday", "ago", "recently"} or re.match(f"last {period}$", en)
    past = past or en == "in the past"
    future = words & {"tomorrow", "soon", "tonight"} or re.match(f"next {period}$", en)
    if past and not tenses <= {"past", "perfect"}:
        out.append(f"{en}: refers to the past, cannot take {sorted(tenses - {'past', 'perfect'})}")
    if future and not tenses <= {"present", "future", "progressive"}:
        out.append(
            f"{en}: refers to the future, cannot take {sorted(tenses & {'past', 'perfect'})}"
        )
    if en in ("now", "right now", "at the moment", "nowadays") and "past" in tenses:
        out.append(f"{en}: refers to the present, not the past")
    return out


def test_adverbs_format_and_count():
    advs = rows("adverbs.tsv")
    assert len(advs) >= 80
    ens = [r["en"] for r in advs]
    assert len(ens) == len(set(ens)), "duplicate English adverbs"
    for r in advs:
        assert r["kind"] in ADVERB_KINDS, r
        tenses = r["tenses"].split()
        assert tenses and set(tenses) <= TENSES and len(tenses) == len(set(tenses)), r
        assert r["front"] in ("0", "1"), r
        for w in r["en"].split():
            assert re.fullmatch(r"[a-z]+", w) or w in WEEKDAYS, r
        assert r["de"], r
        if " " not in r["de"]:
            assert r["de"].islower(), f"a one-word German adverb is not capitalised: {r}"
    kinds = {r["kind"] for r in advs}
    assert kinds == ADVERB_KINDS


def test_adverbs_required():
    ens = {r["en"] for r in rows("adverbs.tsv")}
    assert not set(REQUIRED_ADVERBS) - ens, sorted(set(REQUIRED_ADVERBS) - ens)


def test_adverb_tenses_honest():
    problems = [p for r in rows("adverbs.tsv") for p in adverb_tense_problems(r)]
    assert not problems, "\n".join(problems)
    by_en = {r["en"]: r for r in rows("adverbs.tsv")}
    assert set(by_en["yesterday"]["tenses"].split()) == {"past", "perfect"}
    assert set(by_en["tomorrow"]["tenses"].split()) == {"present", "future"}


def test_adverb_fronting():
    by_en = {r["en"]: r for r in rows("adverbs.tsv")}
    for en in NEVER_FRONT & set(by_en):
        assert by_en[en]["front"] == "0", en
    for en in MUST_FRONT:
        assert by_en[en]["front"] == "1", en


def test_adverbs_are_words():
    bad = []
    for r in rows("adverbs.tsv"):
        en = r["en"]
        if " " not in en and en not in ADVERB_ALLOW:
            lemmas = lemminflect.getAllLemmas(en, upos="ADV")
            forms = lemminflect.getAllInflections(en, upos="ADV")
            if not lemmas and not forms:
                bad.append(("not an English adverb", en))
        bad += [("rare English word", en, w) for w in en.split() if zipf(w, "en") < 2.5]
        bad += [("rare German word", r["de"], w) for w in r["de"].split() if zipf(w, "de") < 2.5]
    assert not bad, bad
    stale = set(ADVERB_ALLOW) - {r["en"] for r in rows("adverbs.tsv")}
    assert not stale, stale


@pytest.mark.parametrize(
    "row",
    [
        {"en": "yesterday", "tenses": "present past"},
        {"en": "last week", "tenses": "future"},
        {"en": "tomorrow", "tenses": "past"},
        {"en": "next year", "tenses": "perfect future"},
        {"en": "now", "tenses": "past present"},
    ],
)
def test_adverb_tense_checker_catches(row):
    assert adverb_tense_problems(row)


# ------------------------------------------------------------------ prepositions

# The case each German preposition governs (German grammar, independent of the English side).
# Two-way prepositions may be fixed to acc or dat by the English one (into, across; among).
GERMAN_CASE = {
    "mit": {"dat"},
    "zu": {"dat"},
    "bis zu": {"dat"},
    "von": {"dat"},
    "aus": {"dat"},
    "bei": {"dat"},
    "seit": {"dat"},
    "nach": {"dat"},
    "außer": {"dat"},
    "gegenüber": {"dat"},
    "für": {"acc"},
    "ohne": {"acc"},
    "durch": {"acc"},
    "gegen": {"acc"},
    "um": {"acc"},
    "während": {"gen"},
    "wegen": {"gen"},
    "trotz": {"gen"},
    "statt": {"gen"},
    "anstatt": {"gen"},
    "innerhalb": {"gen"},
    "außerhalb": {"gen"},
    "jenseits": {"gen"},
    "in der Nähe": {"gen"},
    "in Richtung": {"gen"},
    **dict.fromkeys(
        "in an auf unter über vor hinter neben zwischen".split(), {"two-way", "acc", "dat"}
    ),
}
# English prepositions with a fixed meaning: the case they need in German
ENGLISH_CASE = {
    "into": "acc",
    "onto": "acc",
    "in": "two-way",
    "on": "two-way",
    "at": "two-way",
    "under": "two-way",
    "behind": "two-way",
    "in front of": "two-way",
    "next to": "two-way",
    "between": "two-way",
    "over": "two-way",
    "above": "two-way",
    "below": "two-way",
    "beside": "two-way",
    "to": "dat",
    "from": "dat",
    "with": "dat",
    "for": "acc",
    "without": "acc",
    "during": "gen",
    "because of": "gen",
}
TEMPORAL = ["after", "before", "during", "since", "until", "within"]


def test_prepositions_inventory_exactly_once():
    ens = [r["en"] for r in rows("prepositions.tsv")]
    assert len(ens) >= 40
    inventory = readme_inventory()
    counts = {p: ens.count(p) for p in inventory}
    assert all(c == 1 for c in counts.values()), {p: c for p, c in counts.items() if c != 1}
    assert not set(ens) - set(inventory), (
        f"not in the README inventory: {set(ens) - set(inventory)}"
    )


def test_prepositions_format_and_case():
    for r in rows("prepositions.tsv"):
        assert r["case"] in CASES, r
        check_classes(r["classes"], r["en"])
        assert re.fullmatch(r"[a-z]+( [a-z]+)*", r["en"]), r
        assert r["de"] and r["de"].split()[0].islower(), r
        assert r["de"] in GERMAN_CASE, f"German preposition without a known case: {r}"
        assert r["case"] in GERMAN_CASE[r["de"]], f"{r['de']} does not govern {r['case']}: {r}"
        if r["en"] in ENGLISH_CASE:
            assert r["case"] == ENGLISH_CASE[r["en"]], r
        assert r["de_name"] != r["de"], f"de_name only when it differs: {r}"


def test_prepositions_classes_and_names():
    by_en = {r["en"]: r for r in rows("prepositions.tsv")}
    for en in TEMPORAL:
        assert "time" in classes(by_en[en]["classes"]), en
        assert not classes(by_en[en]["classes"]) & ANIMATE, en
    for en in ("with", "without", "for"):
        assert ANIMATE <= classes(by_en[en]["classes"]), en
    for en in ("into", "onto", "under", "through", "out of"):
        assert not classes(by_en[en]["classes"]) & {"person", "abstract", "time"}, en
    assert by_en["to"]["de_name"] == "nach"
    assert by_en["from"]["de_name"] == "aus"
    assert by_en["in"]["de_name"] == ""


# ------------------------------------------------------------------ names

# countries German uses with an article (die Schweiz, die Türkei, die USA): never bare names
ARTICLE_COUNTRIES = {
    "Switzerland",
    "Turkey",
    "USA",
    "America",
    "United States",
    "Netherlands",
    "Ukraine",
    "Slovakia",
    "Mongolia",
    "Iran",
    "Iraq",
    "Lebanon",
    "Sudan",
    "Congo",
    "Philippines",
    "Vatican",
    "United Kingdom",
}


def test_names_format_and_counts():
    names = rows("names.tsv")
    assert len(names) >= 200
    ens = [r["en"] for r in names]
    assert len(ens) == len(set(ens)), "duplicate names"
    for r in names:
        assert r["kind"] in NAME_KINDS, r
        assert r["sex"] == ("" if r["kind"] != "person" else r["sex"]), r
        if r["kind"] == "person":
            assert r["sex"] in ("m", "f"), r
            assert r["de"] == r["en"], f"first names are spelt the same: {r}"
        for cell in (r["en"], r["de"]):
            assert re.fullmatch(r"[A-ZÄÖÜ][a-zäöüß]+", cell), r
    count = {
        (k, s): sum(r["kind"] == k and r["sex"] == s for r in names)
        for k, s in (("person", "m"), ("person", "f"), ("city", ""), ("country", ""))
    }
    assert count[("person", "m")] >= 60 and count[("person", "f")] >= 60, count
    assert count[("city", "")] >= 40 and count[("country", "")] >= 20, count


def test_countries_without_article():
    countries = [r for r in rows("names.tsv") if r["kind"] == "country"]
    for r in countries:
        assert r["en"] not in ARTICLE_COUNTRIES, r
        # German feminine country names in -ei take an article (die Türkei, die Slowakei)
        assert not r["de"].endswith("ei"), r
    by_en = {r["en"]: r["de"] for r in countries}
    assert by_en["Germany"] == "Deutschland" and by_en["Austria"] == "Österreich"


def test_names_common_in_both_languages():
    """People's names are common in both languages; places are known under both forms."""
    bad = []
    for r in rows("names.tsv"):
        if r["kind"] == "person":
            if min(zipf(r["en"], "en"), zipf(r["de"], "de")) < 3.0:
                bad.append((r["en"], zipf(r["en"], "en"), zipf(r["de"], "de")))
        elif zipf(r["en"], "en") < 2.5 or zipf(r["de"], "de") < 3.0:
            bad.append((r["en"], r["de"], zipf(r["en"], "en"), zipf(r["de"], "de")))
    assert not bad, bad


def test_german_city_forms():
    by_en = {r["en"]: r["de"] for r in rows("names.tsv") if r["kind"] == "city"}
    known = {"Munich": "München", "Vienna": "Wien", "Cologne": "Köln", "Rome": "Rom"}
    for en, de in known.items():
        if en in by_en:
            assert by_en[en] == de, en
    assert "Berlin" in by_en and by_en["Berlin"] == "Berlin"
