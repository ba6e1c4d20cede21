"""corpus/data/nouns.tsv, checked against data that was not used to write it by hand.

- format and semantic classes: against the schema and the class table of corpus/data/README.md;
- German gender, nominative plural, genitive singular, weak accusative/dative singular and the
  dative plural the grammar derives: against `german-nouns` (a dump of the German Wiktionary);
- English plurals: against `lemminflect`;
- choice and order of the English words: against `wordfreq`;
- a few rows written out below by hand (golden values), so that a systematic error in the file
  and in the reference data at the same time still fails.

Rows that german-nouns or lemminflect get wrong are accepted only through the explicit
allow-lists KNOWN_DISAGREEMENTS and EN_PLURAL_EXCEPTIONS, each entry with its reason; a stale
entry (one that no longer disagrees, or whose word left the file) fails too.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from functools import cache
from pathlib import Path

import lemminflect
import pytest
import wordfreq

from tests.corpus.readme import readme_classes, readme_header

DATA = Path(__file__).resolve().parents[2] / "corpus" / "data"
NOUNS = DATA / "nouns.tsv"

HEADER = [
    "en",
    "en_plural",
    "de",
    "gender",
    "de_plural",
    "de_oblique",
    "de_genitive",
    "sex",
    "classes",
    "mass",
]

# German words whose row disagrees with german-nouns on purpose (keyed by the `de` cell).
KNOWN_DISAGREEMENTS = {
    "Papagei": "german-nouns has only the rare weak forms (den Papageien); Duden and Wiktionary "
    "give the usual strong singular: den Papagei, des Papageis",
}

# English nouns whose plural is right although lemminflect does not list it.
EN_PLURAL_EXCEPTIONS = {
    "person": "the usual plural is 'people'; lemminflect knows only 'persons'",
    "casino": "lemminflect's table lacks the regular plural 'casinos'",
}

# Words a demo and the hand-written test sentences use.
REQUIRED = """cat mat dog animal street man woman child book father mother house garden park river
bridge table chair apple bread water coffee car bus train school teacher student friend doctor
city tree flower sun letter newspaper key phone computer door window room kitchen bed box bag ball
song story picture film movie game party day week year morning evening night girl boy baby king
queen horse bird fish mouse cow pig sheep road idea problem question answer""".split()

# Hand-checked rows (not copied from german-nouns): en -> the cells from en_plural to sex.
GOLDEN = {
    "dog": ("dogs", "Hund", "m", "Hunde", "", "Hundes", ""),
    "student": ("students", "Student", "m", "Studenten", "Studenten", "Studenten", ""),
    "boy": ("boys", "Junge", "m", "Jungen", "Jungen", "Jungen", "m"),
    "child": ("children", "Kind", "n", "Kinder", "", "Kindes", ""),
    "mother": ("mothers", "Mutter", "f", "Mütter", "", "Mutter", "f"),
    "father": ("fathers", "Vater", "m", "Väter", "", "Vaters", "m"),
    "teacher": ("teachers", "Lehrer", "m", "Lehrer", "", "Lehrers", ""),
    "girl": ("girls", "Mädchen", "n", "Mädchen", "", "Mädchens", "f"),
    "apple": ("apples", "Apfel", "m", "Äpfel", "", "Apfels", ""),
    "book": ("books", "Buch", "n", "Bücher", "", "Buches", ""),
    "car": ("cars", "Auto", "n", "Autos", "", "Autos", ""),
    "name": ("names", "Name", "m", "Namen", "Namen", "Namens", ""),
    "mouse": ("mice", "Maus", "f", "Mäuse", "", "Maus", ""),
    "sheep": ("sheep", "Schaf", "n", "Schafe", "", "Schafes", ""),
    "gentleman": ("gentlemen", "Herr", "m", "Herren", "Herrn", "Herrn", "m"),
    "water": ("water", "Wasser", "n", "", "", "Wassers", ""),
    "woman": ("women", "Frau", "f", "Frauen", "", "Frau", "f"),
    "doctor": ("doctors", "Arzt", "m", "Ärzte", "", "Arztes", ""),
}

# Fewest nouns per class, so that a grammar can build varied sentences for every class.
MIN_PER_CLASS = {
    "person": 120,
    "animal": 50,
    "plant": 15,
    "food": 50,
    "drink": 10,
    "object": 100,
    "furniture": 20,
    "vehicle": 15,
    "building": 40,
    "room": 15,
    "place": 60,
    "text": 40,
    "device": 20,
    "clothing": 15,
    "body": 35,
    "abstract": 150,
    "time": 25,
    "event": 60,
    "group": 30,
    "material": 30,
    "nature": 40,
    "fact": 5,  # v2.1 only (noun_classes_v2_1.tsv): few, and each a fact in German (wissen)
    "question": 1,  # v2.1 only: what one asks (eine Frage stellen)
    "game": 5,  # v2.1 only: a game one plays (Fußball spielen)
    "site": 5,  # v2.1 only: a building one is at, not in (am Bahnhof)
    "gathering": 5,  # v2.1 only: an occasion one is at (auf der Party)
    "venue": 5,  # v2.1 only: a building one goes into for what happens there (ins Kino)
    "instrument": 3,  # v2.1 only: an instrument one plays, no article (Gitarre spielen)
}


# ------------------------------------------------------------------ reading


@cache
def table(path: Path = NOUNS) -> tuple[list[str], list[list[str]]]:
    """(header, data rows) with comment lines skipped; cells are not yet checked."""
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    assert lines[0] and not lines[0].startswith("#"), "the header line must come first"
    body = [line for line in lines if line.strip() and not line.startswith("#")]
    parsed = list(csv.reader(body, delimiter="\t", quoting=csv.QUOTE_NONE))
    return parsed[0], parsed[1:]


@cache
def rows(path: Path = NOUNS) -> tuple[dict[str, str], ...]:
    header, data = table(path)
    return tuple(dict(zip(header, cells, strict=True)) for cells in data if len(cells) == 10)


def added_classes() -> list[dict[str, str]]:
    """The rows of noun_classes_v2_1.tsv: classes v2.1 adds to nouns of nouns.tsv."""
    header, data = table(DATA / "noun_classes_v2_1.tsv")
    assert header == ["en", "classes"]
    return [dict(zip(header, cells, strict=True)) for cells in data]


def by_en() -> dict[str, dict[str, str]]:
    return {r["en"]: r for r in rows()}


@cache
def en_rank() -> dict[str, int]:
    return {w: i for i, w in enumerate(wordfreq.top_n_list("en", 30000))}


# --------------------------------------------------------------- german-nouns


@cache
def german_nouns():
    from german_nouns.lookup import Nouns

    return Nouns()


def _forms(flexion: dict[str, str], key: str, variant: str | None) -> set[str]:
    """All forms of one slot ('genitiv singular') for one gender variant of an entry.

    Wiktionary numbers the forms of nouns with two genders or two declensions ('genus 1' goes
    with 'genitiv singular 1'); '*' marks an alternative form ('genitiv singular*' = Hundes).
    """
    if variant is None:
        keys = [key, key + "*"] + [f"{key} {i}" for i in "1234"]
    else:
        keys = [f"{key} {variant}", key, key + "*"]
    return {flexion[k] for k in keys if k in flexion}


@cache
def readings(de: str) -> tuple[dict, ...]:
    """Every (gender, forms) reading german-nouns has for the nominative singular `de`."""
    out = []
    for entry in german_nouns()[de]:
        fl = entry["flexion"]
        if not fl:
            continue
        if "genus" in entry:
            variants = [(entry["genus"], None)]
        else:
            variants = [(entry[k], k.split()[1]) for k in entry if k.startswith("genus ")]
        plurals = {
            v
            for k, v in fl.items()
            if k.startswith("nominativ plural") and not k.endswith(("stark", "schwach", "gemischt"))
        }
        dative_plurals = {
            v
            for k, v in fl.items()
            if k.startswith("dativ plural") and not k.endswith(("stark", "schwach", "gemischt"))
        }
        for gender, variant in variants:
            if de not in _forms(fl, "nominativ singular", variant):
                continue  # `de` is another form of this lemma (e.g. a plural), not its singular
            out.append(
                {
                    "gender": gender,
                    "plural": plurals,
                    "dative_plural": dative_plurals,
                    "genitive": _forms(fl, "genitiv singular", variant),
                    "accusative": _forms(fl, "akkusativ singular", variant),
                    "dative": _forms(fl, "dativ singular", variant),
                }
            )
    return tuple(out)


def dative_plural(plural: str) -> str:
    """The rule the grammar uses (corpus/data/README.md): +n unless it ends in -n or -s."""
    return plural if plural.endswith(("n", "s")) else plural + "n"


def german_problems(r: dict[str, str]) -> list[str]:
    """Why german-nouns does not confirm this row (empty when one reading matches every cell)."""
    found = readings(r["de"])
    if not found:
        return [f"{r['de']}: not in german-nouns"]
    same_gender = [x for x in found if x["gender"] == r["gender"]]
    if not same_gender:
        genders = sorted({x["gender"] for x in found})
        return [f"{r['de']}: gender {r['gender']}, german-nouns has {genders}"]
    mass = r["mass"] == "1"
    best: list[str] | None = None
    for x in same_gender:
        problems = []
        if not mass and r["de_plural"] not in x["plural"]:
            problems.append(f"plural {r['de_plural']} not in {sorted(x['plural'])}")
        if not mass and dative_plural(r["de_plural"]) not in x["dative_plural"]:
            problems.append(
                f"derived dative plural {dative_plural(r['de_plural'])} "
                f"not in {sorted(x['dative_plural'])}"
            )
        if r["de_genitive"] not in x["genitive"]:
            problems.append(f"genitive {r['de_genitive']} not in {sorted(x['genitive'])}")
        oblique = r["de_oblique"] or r["de"]
        if oblique not in x["accusative"]:
            problems.append(f"accusative {oblique} not in {sorted(x['accusative'])}")
        if oblique not in x["dative"]:
            problems.append(f"dative {oblique} not in {sorted(x['dative'])}")
        if not problems:
            return []
        if best is None or len(problems) < len(best):
            best = problems
    return [f"{r['de']}: {p}" for p in best or []]


# ------------------------------------------------------------------ format


def test_readme_parses():
    # guards the parsers: a reworded README must not make the class checks vacuous
    assert len(readme_classes()) == 28  # v2.1: site, gathering (at = an, auf), venue, instrument
    assert {"person", "animal", "food", "drink", "furniture", "nature"} <= readme_classes()
    assert list(readme_header("nouns.tsv")) == HEADER


def test_header_and_cell_count():
    header, data = table()
    assert header == HEADER
    bad = [(i, len(cells), cells) for i, cells in enumerate(data, 2) if len(cells) != 10]
    assert not bad, f"rows without 10 cells: {bad[:5]}"
    assert len(rows()) == len(data)
    assert len(rows()) >= 1000, len(rows())


def test_cells():
    problems = []
    for i, r in enumerate(rows(), 2):
        where = f"row {i} ({r['en']})"
        for k, v in r.items():
            if v != v.strip() or "  " in v or v in ("-", "None", "none", "null"):
                problems.append(f"{where}: bad cell {k}={v!r}")
        if not re.fullmatch(r"[a-z]+", r["en"]):
            problems.append(f"{where}: en is not one lower-case word")
        if not re.fullmatch(r"[a-z]+", r["en_plural"]):
            problems.append(f"{where}: en_plural {r['en_plural']!r}")
        for k in ("de", "de_plural", "de_oblique", "de_genitive"):
            v = r[k]
            if v and not re.fullmatch(r"[A-ZÄÖÜ][a-zäöüßé]*(-[A-Z][a-zäöüß]*)?", v):
                problems.append(f"{where}: {k} {v!r} is not one capitalised German word")
        if not r["de"] or not r["de_genitive"]:
            problems.append(f"{where}: de and de_genitive must be filled")
        if r["gender"] not in ("m", "f", "n"):
            problems.append(f"{where}: gender {r['gender']!r}")
        if r["mass"] not in ("0", "1"):
            problems.append(f"{where}: mass {r['mass']!r}")
        if r["sex"] not in ("", "m", "f"):
            problems.append(f"{where}: sex {r['sex']!r}")
        words = r["classes"].split()
        if not words or len(words) != len(set(words)):
            problems.append(f"{where}: classes {r['classes']!r} empty or repeated")
        unknown = set(words) - readme_classes()
        if unknown:
            problems.append(f"{where}: classes not in the README table: {sorted(unknown)}")
    assert not problems, "\n".join(problems[:40])


def test_no_duplicate_english_word():
    counts = Counter(r["en"] for r in rows())
    assert not [w for w, n in counts.items() if n > 1]


def test_mass_nouns_have_no_plural_and_count_nouns_have_one():
    problems = []
    for r in rows():
        if r["mass"] == "1":
            if r["de_plural"] or r["en_plural"] != r["en"]:
                problems.append(f"{r['en']}: a mass noun needs en_plural = en and no de_plural")
        elif not r["de_plural"]:
            problems.append(f"{r['en']}: a count noun needs de_plural")
    assert not problems, problems
    mass = {r["en"] for r in rows() if r["mass"] == "1"}
    assert {"water", "milk", "coffee", "tea", "juice", "beer", "wine", "music", "money"} <= mass
    assert not {"dog", "book", "car", "apple", "idea", "day"} & mass


def test_german_grammar_rules():
    # independent of any data: weak nouns are masculine, feminine nouns have no genitive ending
    problems = []
    for r in rows():
        if r["de_oblique"] and r["gender"] != "m":
            problems.append(f"{r['de']}: only masculine nouns are weak")
        if r["de_oblique"] == r["de"]:
            problems.append(f"{r['de']}: de_oblique must be empty when it equals de")
        if r["gender"] == "f" and r["de_genitive"] != r["de"]:
            problems.append(f"{r['de']}: feminine genitive singular is the nominative")
        if r["gender"] in "mn" and r["de_genitive"] == r["de"] and not r["de"].endswith(("s", "z")):
            # only nouns in -s or -z keep the bare form (des Virus, des Campus, des Jazz)
            problems.append(f"{r['de']}: masculine/neuter genitive without an ending")
    assert not problems, problems


# ------------------------------------------------------------ semantic content


def test_required_words_present():
    assert not [w for w in REQUIRED if w not in by_en()]


def test_golden_rows():
    table_ = by_en()
    for en, expected in GOLDEN.items():
        r = table_[en]
        actual = (
            r["en_plural"],
            r["de"],
            r["gender"],
            r["de_plural"],
            r["de_oblique"],
            r["de_genitive"],
            r["sex"],
        )
        assert actual == expected, en


def test_golden_classes():
    table_ = by_en()
    expected = {
        "book": {"object", "text"},
        "school": {"building", "place"},
        "friend": {"person"},
        "teacher": {"person"},
        "cat": {"animal"},
        "tree": {"plant"},
        "coffee": {"drink"},
        "bread": {"food"},
        "table": {"furniture"},
        "car": {"vehicle"},
        "kitchen": {"room"},
        "newspaper": {"text"},
        "phone": {"device"},
        "hand": {"body"},
        "idea": {"abstract"},
        "morning": {"time"},
        "party": {"event"},
        "team": {"group"},
        "gold": {"material"},
        "river": {"nature"},
        "street": {"place"},
    }
    for en, classes in expected.items():
        assert classes <= set(table_[en]["classes"].split()), en


def test_class_populations():
    counts = Counter(c for r in [*rows(), *added_classes()] for c in r["classes"].split())
    assert set(MIN_PER_CLASS) == readme_classes()
    low = {c: counts[c] for c, n in MIN_PER_CLASS.items() if counts[c] < n}
    assert not low, low


def test_sex_only_where_the_english_word_gives_it():
    table_ = by_en()
    expected = {
        "man": "m",
        "woman": "f",
        "father": "m",
        "mother": "f",
        "boy": "m",
        "girl": "f",
        "king": "m",
        "queen": "f",
        "brother": "m",
        "sister": "f",
        "son": "m",
        "daughter": "f",
        "husband": "m",
        "wife": "f",
        "teacher": "",
        "doctor": "",
        "child": "",
        "friend": "",
        "student": "",
        "baby": "",
    }
    assert {en: table_[en]["sex"] for en in expected} == expected
    stray = [r["en"] for r in rows() if r["sex"] and "person" not in r["classes"].split()]
    assert not stray, stray


def test_common_drinks_are_mass_nouns():
    table_ = by_en()
    for en in ("water", "milk", "coffee", "tea", "juice", "beer", "wine"):
        assert "drink" in table_[en]["classes"].split(), en
        assert table_[en]["mass"] == "1", en


def test_english_words_follow_wordfreq_order():
    rank = en_rank()
    missing = [r["en"] for r in rows() if r["en"] not in rank]
    assert not missing, f"not among wordfreq's 30,000 most frequent English words: {missing}"
    ranks = [rank[r["en"]] for r in rows()]
    out_of_order = [
        (rows()[i]["en"], rows()[i + 1]["en"])
        for i in range(len(ranks) - 1)
        if ranks[i] >= ranks[i + 1]
    ]
    assert not out_of_order, out_of_order[:10]


# ------------------------------------------------------------- reference data


def test_german_forms_against_german_nouns():
    problems = []
    for r in rows():
        if r["de"] in KNOWN_DISAGREEMENTS:
            continue
        problems += [f"{r['en']}: {p}" for p in german_problems(r)]
    assert not problems, "\n".join(problems)


def test_known_disagreements_are_needed():
    assert len(KNOWN_DISAGREEMENTS) < 20
    in_file = {r["de"]: r for r in rows()}
    for de, reason in KNOWN_DISAGREEMENTS.items():
        assert reason.strip(), de
        assert de in in_file, f"{de}: allow-listed but not in nouns.tsv"
        assert german_problems(in_file[de]), f"{de}: german-nouns agrees now; drop the entry"


def test_the_german_nouns_check_can_fail():
    # the comparison must reject wrong data, not just accept everything
    dog = dict(by_en()["dog"])
    assert not german_problems(dog)
    assert german_problems({**dog, "gender": "f"})
    assert german_problems({**dog, "de_plural": "Hunden"})
    assert german_problems({**dog, "de_genitive": "Hunden"})
    assert german_problems({**dog, "de_oblique": "Hunden"})
    student = dict(by_en()["student"])
    assert not german_problems(student)
    assert german_problems({**student, "de_oblique": ""})


@pytest.mark.parametrize("en", sorted(EN_PLURAL_EXCEPTIONS))
def test_en_plural_exceptions_are_needed(en):
    r = by_en()[en]
    assert r["en_plural"] not in lemminflect.getInflection(en, "NNS")


def test_english_plurals_against_lemminflect():
    problems = []
    checked = 0
    for r in rows():
        if r["mass"] == "1" or r["en"] in EN_PLURAL_EXCEPTIONS:
            continue
        checked += 1
        candidates = lemminflect.getInflection(r["en"], "NNS")
        if r["en_plural"] not in candidates:
            problems.append(f"{r['en']}: {r['en_plural']} not in {candidates}")
    assert checked >= 800, checked
    assert not problems, problems


# ------------------------------------------------------------------ corpus v2.1

# v2.1's German words whose plural is not german-nouns' on purpose: `de` -> (german-nouns'
# plural, why); every other cell of the row must agree with it.
OWN_PLURALS_V2_1 = {
    "Elternteil": (
        "Elternteile",
        "'parents' are die Eltern, a plural of its own (Elternteile: the parents one by one)",
    ),
}


def test_v2_1_nouns_are_checked_like_v2_s():
    """nouns_v2_1.tsv (parent = Elternteil, parents = Eltern): v2's columns, classes from the
    README, words v2 does not have, German forms against german-nouns and English plurals
    against lemminflect; a plural of its own only through OWN_PLURALS_V2_1."""
    path = DATA / "nouns_v2_1.tsv"
    header, data = table(path)
    assert header == HEADER
    assert all(len(cells) == len(HEADER) for cells in data)
    v2_1 = rows(path)
    assert v2_1, "no rows"
    problems = []
    for r in v2_1:
        if r["en"] in by_en():
            problems.append(f"{r['en']}: already in nouns.tsv")
        if unknown := set(r["classes"].split()) - readme_classes():
            problems.append(f"{r['en']}: classes {sorted(unknown)} not in the README")
        if r["gender"] not in ("m", "f", "n"):
            problems.append(f"{r['en']}: gender {r['gender']!r}")
        if r["de"] in OWN_PLURALS_V2_1:
            if not german_problems(r):
                problems.append(f"{r['de']}: allow-listed but german-nouns agrees now")
            r = dict(r, de_plural=OWN_PLURALS_V2_1[r["de"]][0])
        problems += german_problems(r)
        if r["mass"] != "1" and r["en_plural"] not in lemminflect.getInflection(r["en"], "NNS"):
            problems.append(f"{r['en']}: English plural {r['en_plural']} not in lemminflect's")
    stale = set(OWN_PLURALS_V2_1) - {r["de"] for r in v2_1}
    problems += [f"{de}: allow-listed but not in nouns_v2_1.tsv" for de in sorted(stale)]
    assert not problems, problems


def test_v2_1_noun_classes_name_nouns_of_v2_and_readme_classes():
    """noun_classes_v2_1.tsv adds classes (fact: knows the answer = weiß die Antwort) to v2's
    nouns, for v2.1 alone: v2's lexicon is left as it was."""
    added = added_classes()
    assert added, "no rows"
    problems = [r["en"] for r in added if r["en"] not in by_en()]
    problems += [
        f"{r['en']}: {c}" for r in added for c in r["classes"].split() if c not in readme_classes()
    ]
    assert not problems, problems
    from corpus import lexicon as lx

    v2, v2_1 = lx.load_version("v2"), lx.load_version("v2.1")
    assert "fact" in v2_1.noun("answer").classes
    assert all("fact" not in n.classes for n in v2.nouns)


def test_v2_1_noun_senses_against_german_nouns():
    """noun_senses_v2_1.tsv (food of animals = Futter, the lesson as class time = Unterricht):
    second senses of nouns of nouns.tsv, their gender and genitive as german-nouns has them."""
    header, data = table(DATA / "noun_senses_v2_1.tsv")
    assert header[:7] == [
        "sense_of",
        "key",
        "de",
        "gender",
        "de_plural",
        "de_oblique",
        "de_genitive",
    ]
    senses = [dict(zip(header, cells, strict=True)) for cells in data]
    assert senses, "no rows"
    problems = [r["key"] for r in senses if r["sense_of"] not in by_en()]
    for r in senses:
        found = readings(r["de"])
        if not any(
            x["gender"] == r["gender"] and (r["de_genitive"] or r["de"]) in x["genitive"]
            for x in found
        ):
            problems.append(f"{r['key']}: {r['de']} {r['gender']} {r['de_genitive']}: {found}")
    assert not problems, problems
