"""verbs.tsv of corpus v2, checked against the README and against independent data.

The columns, the semantic classes and the preposition inventory are parsed from
corpus/data/README.md. German verb forms are compared with `ablaut`, English inflections with
`lemminflect`, the choice and order of the English verbs with `wordfreq`. Where a reference is
wrong or allows a variant, a row is accepted only through KNOWN_DISAGREEMENTS / EN_ALLOWED below,
one reason each; an entry that no longer matches a disagreement fails too, so the lists stay
honest.
"""

from __future__ import annotations

import csv
import re
from functools import cache
from pathlib import Path

import ablaut
import wordfreq
from lemminflect import getInflection

from tests.corpus.readme import readme_classes, readme_header, readme_inventory

DATA = Path(__file__).resolve().parents[2] / "corpus" / "data"
FILE = "verbs.tsv"

FRAMES = {"intrans", "acc", "dat", "dat_acc", "that", "prep"}
OBJECT_FRAMES = {"acc", "dat", "dat_acc", "prep"}
GERMAN_FIELDS = ("prefix", "de_present", "de_preterite", "de_participle", "aux", "de_imperative")
ENGLISH_TAGS = {"en_3sg": "VBZ", "en_past": "VBD", "en_participle": "VBN", "en_ing": "VBG"}

# (German infinitive, field) -> why the row differs from ablaut.
KNOWN_DISAGREEMENTS = {
    ("überqueren", "de_imperative"): "ablaut says 'überquer'; 'überquere' is the standard form",
    ("zeigen", "de_imperative"): "'zeig' and 'zeige' are both standard; the hand-checked "
    "sentences use 'Zeig dem Lehrer das Bild.'",
    ("bekommen", "aux"): "bekommen 'receive' takes haben; sein belongs to 'agree with (food)'",
    ("passieren", "aux"): "passieren 'happen' takes sein (Was ist passiert?)",
    ("rollen", "aux"): "intransitive rollen (the ball rolls under the table) takes sein",
    ("reiten", "aux"): "reiten as movement to a place takes sein (ist durch den Wald geritten)",
    ("wandern", "aux"): "wandern takes sein (ist gewandert)",
    ("fahren", "aux"): "transitive fahren (das Auto fahren, key drive_vehicle) takes haben",
    ("unterschreiben", "prefix"): "unterschreiben is inseparable (ich unterschreibe); ablaut "
    "splits it like a separable verb",
    ("unterschreiben", "de_participle"): "inseparable: unterschrieben, not untergeschrieben",
}

# (English base, field) -> why the form is not among lemminflect's candidates.
EN_ALLOWED = {
    ("lie", "en_participle"): "lie = liegen: lain (lemminflect gives 'lied', of lie = tell lies)",
    ("smell", "en_participle"): "'smelled' like the past tense; lemminflect has only British "
    "'smelt'",
    ("knit", "en_past"): "'knitted' is the usual past; lemminflect has only 'knit'",
    ("knit", "en_participle"): "'knitted' is the usual participle; lemminflect has only 'knit'",
    ("fit", "en_participle"): "American 'has fit' for the size sense, like the past 'fit'",
}

# Verbs the demo and the hand-written tests (corpus/data/hand_checked.tsv) use: key -> German infinitive.
REQUIRED = {
    "see": "sehen", "read": "lesen", "write": "schreiben", "eat": "essen", "drink": "trinken",
    "sleep": "schlafen", "go": "gehen", "come": "kommen", "run": "laufen", "swim": "schwimmen",
    "sit": "sitzen", "stand": "stehen", "lie": "liegen", "cross": "überqueren",
    "help": "helfen", "thank": "danken", "follow": "folgen", "give": "geben", "show": "zeigen",
    "tell": "erzählen", "send": "schicken", "buy": "kaufen", "sell": "verkaufen",
    "find": "finden", "lose": "verlieren", "know": "kennen", "know_that": "wissen",
    "think": "denken", "believe": "glauben", "hope": "hoffen", "say": "sagen",
    "play": "spielen", "work": "arbeiten", "live": "wohnen", "love": "lieben", "like": "mögen",
    "visit": "besuchen", "wait": "warten", "listen": "zuhören", "look": "ansehen",
    "open": "öffnen", "close": "schließen", "arrive": "ankommen", "leave": "verlassen",
    "cook": "kochen", "carry": "tragen", "drive": "fahren", "fly": "fliegen", "fall": "fallen",
    "learn": "lernen", "understand": "verstehen", "explain": "erklären", "ask": "fragen",
    "call": "anrufen", "build": "bauen", "cut": "schneiden", "bring": "bringen",
    "take": "nehmen", "put": "legen", "sing": "singen", "dance": "tanzen", "laugh": "lachen",
    "cry": "weinen", "wash": "waschen", "paint": "malen", "draw": "zeichnen", "meet": "treffen",
    "forget": "vergessen", "stop": "aufhören", "catch": "fangen", "throw": "werfen",
    "climb": "klettern", "jump": "springen", "hide": "verstecken", "fix": "reparieren",
    "need": "brauchen", "use": "benutzen", "pay": "bezahlen", "win": "gewinnen", "hear": "hören",
    "hold": "halten", "kick": "treten", "bite": "beißen", "feed": "füttern", "save": "retten",
    "kill": "töten", "choose": "wählen", "change": "ändern", "grow": "wachsen",
    "die": "sterben", "stay": "bleiben", "return": "zurückkommen", "enter": "betreten",
    "travel": "reisen", "have": "haben",
}  # fmt: skip
# explain is acc, not dat_acc: the grammar writes a dative object as an English double object,
# and "*explain the boy the problem" is not English.
REQUIRED_FRAMES = {
    "know_that": ("that", ""), "think": ("that", ""), "believe": ("that", ""),
    "hope": ("that", ""), "say": ("that", ""), "wait": ("prep", "for"), "listen": ("dat", "to"),
    "look": ("acc", "at"), "help": ("dat", ""), "thank": ("dat", ""), "follow": ("dat", ""),
    "give": ("dat_acc", ""), "show": ("dat_acc", ""), "tell": ("dat_acc", ""),
    "explain": ("acc", ""), "have": ("acc", ""), "cross": ("acc", ""), "leave": ("acc", ""),
}  # fmt: skip
# Not in the file: the grammar has them as auxiliaries or modals ("want to" is a modal there).
EXCLUDED = {
    "be", "do", "can", "could", "will", "would", "shall", "should", "may", "might",
    "must", "ought", "want",
}  # fmt: skip

# German grammar, written out independently of the data: verbs whose single object is dative,
# and the cases the prepositions of a prepositional object can govern.
DATIVE_VERBS = {
    "helfen", "danken", "folgen", "gehören", "zuhören", "antworten", "vertrauen", "zustimmen",
    "verzeihen", "gehorchen", "begegnen", "gratulieren", "schaden", "ähneln", "widersprechen",
    "winken", "beitreten", "gefallen", "glauben", "drohen", "schmeicheln", "zusehen",
}  # fmt: skip
PREP_CASES = {
    "an": {"acc", "dat"}, "auf": {"acc", "dat"}, "über": {"acc", "dat"}, "in": {"acc", "dat"},
    "vor": {"acc", "dat"}, "unter": {"acc", "dat"}, "mit": {"dat"}, "von": {"dat"},
    "nach": {"dat"}, "zu": {"dat"}, "aus": {"dat"}, "bei": {"dat"}, "um": {"acc"},
    "für": {"acc"}, "gegen": {"acc"},
}  # fmt: skip


# ------------------------------------------------------------------ reading


@cache
def read(name: str = FILE) -> tuple[tuple[str, ...], tuple[dict[str, str], ...]]:
    with open(DATA / name, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    assert lines[0] and not lines[0].startswith("#"), "the header line must come first"
    body = [line for line in lines if line.strip() and not line.startswith("#")]
    table = list(csv.reader(body, delimiter="\t", quoting=csv.QUOTE_NONE))
    header = tuple(table[0])
    bad = [
        f"data row {i}: {len(cells)} cells: {cells[:2]}"
        for i, cells in enumerate(table[1:], 2)
        if len(cells) != len(header)
    ]
    assert not bad, "\n".join(bad)
    return header, tuple(dict(zip(header, cells, strict=True)) for cells in table[1:])


def rows() -> tuple[dict[str, str], ...]:
    return read()[1]


def split_preps(cell: str) -> list[str] | None:
    """The preps cell as inventory keys (multi-word keys matched whole, longest first), or None
    if some word is left over."""
    keys = sorted((k.split() for k in readme_inventory()), key=len, reverse=True)
    words, out, i = cell.split(), [], 0
    while i < len(words):
        for k in keys:
            if words[i : i + len(k)] == k:
                out.append(" ".join(k))
                i += len(k)
                break
        else:
            return None
    return out


@cache
def conjugation(infinitive: str):
    return ablaut.conjugate(infinitive)


def _split(form: str) -> tuple[str, str]:
    """ablaut's 'komme an' -> ('komme', 'an'); an unseparated form -> (form, '')."""
    finite, _, prefix = form.partition(" ")
    return finite, prefix


def fail_all(problems: list[str], what: str) -> None:
    assert not problems, f"{len(problems)} {what}:\n" + "\n".join(problems)


# ------------------------------------------------------------------ format


def test_readme_parses():
    # a README reworded beyond recognition must not make these tests vacuous
    assert len(readme_classes()) == 28  # v2.1: site, gathering (at = an, auf), venue, instrument
    assert {"in", "in front of", "out of", "towards"} <= set(readme_inventory())
    assert len(readme_header(FILE)) == 21


def test_header_matches_readme():
    assert read()[0] == readme_header(FILE)


def test_cells_are_clean():
    problems = []
    for r in rows():
        for col, cell in r.items():
            if cell != cell.strip() or "  " in cell or cell in ("-", "None", "none", "null"):
                problems.append(f"{r['key']}.{col}: {cell!r}")
        for col in ("key", "en", "en_3sg", "en_past", "en_participle", "en_ing", "de"):
            if not re.fullmatch(r"[a-zäöüß_]+", r[col]):
                problems.append(f"{r['key']}.{col}: not one lower-case word: {r[col]!r}")
        for col in ("de_present", "de_preterite"):
            if len(r[col].split()) != 6:
                problems.append(f"{r['key']}.{col}: not six forms: {r[col]!r}")
    fail_all(problems, "bad cells")


def test_size_and_unique_keys():
    keys = [r["key"] for r in rows()]
    assert len(keys) >= 350
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    assert not dupes, dupes
    bad = [
        r["key"] for r in rows() if r["key"] != r["en"] and not r["key"].startswith(r["en"] + "_")
    ]
    assert not bad, f"key must be the English base, optionally with a suffix: {bad}"


def test_frames_and_objects():
    problems = []
    for r in rows():
        k, frame, prep = r["key"], r["frame"], r["de_object_prep"]
        if frame not in FRAMES:
            problems.append(f"{k}: frame {frame!r}")
            continue
        if (frame == "prep") != bool(prep):
            problems.append(f"{k}: de_object_prep {prep!r} with frame {frame}")
        if prep:
            p = prep.split()
            if len(p) != 2 or p[0] not in PREP_CASES or p[1] not in PREP_CASES[p[0]]:
                problems.append(f"{k}: de_object_prep {prep!r} is not 'preposition case'")
        if (frame in OBJECT_FRAMES) != bool(r["object"]):
            problems.append(f"{k}: object {r['object']!r} with frame {frame}")
        if (frame == "dat_acc") != bool(r["iobject"]):
            problems.append(f"{k}: iobject {r['iobject']!r} with frame {frame}")
        particle = r["en_particle"]
        if particle and (frame not in ("acc", "dat", "prep") or particle not in readme_inventory()):
            problems.append(f"{k}: en_particle {particle!r} with frame {frame}")
        if frame == "dat" and r["de"] not in DATIVE_VERBS:
            problems.append(f"{k}: {r['de']} does not take a dative object")
        if frame in ("acc", "dat_acc") and r["de"] in DATIVE_VERBS:
            problems.append(f"{k}: {r['de']} takes a dative object, not frame {frame}")
        if frame in ("acc", "dat_acc") and r["aux"] == "sein":
            problems.append(f"{k}: an accusative object with the perfect on sein")
    fail_all(problems, "frame problems")


WEATHER = {"rain", "snow"}


def test_classes():
    allowed = readme_classes() | {"animate"}
    problems = []
    for r in rows():
        for col in ("subject", "object", "iobject"):
            words = r[col].split()
            # weather verbs alone have no subject classes: their subject is the expletive "it"
            weather = r["frame"] == "intrans" and not r["preps"] and r["key"] in WEATHER
            if col == "subject" and not words and not weather:
                problems.append(f"{r['key']}: no subject classes")
            if len(words) != len(set(words)):
                problems.append(f"{r['key']}.{col}: repeated class in {r[col]!r}")
            if unknown := set(words) - allowed:
                problems.append(f"{r['key']}.{col}: not in the README: {sorted(unknown)}")
    fail_all(problems, "class problems")


def test_preps_aux_motion():
    problems = []
    for r in rows():
        preps = split_preps(r["preps"])
        if preps is None:
            problems.append(f"{r['key']}: preps not in the README inventory: {r['preps']!r}")
        elif len(preps) != len(set(preps)):
            problems.append(f"{r['key']}: repeated preposition in {r['preps']!r}")
        if r["aux"] not in ("haben", "sein"):
            problems.append(f"{r['key']}: aux {r['aux']!r}")
        if r["motion"] not in ("0", "1"):
            problems.append(f"{r['key']}: motion {r['motion']!r}")
    fail_all(problems, "problems")


def test_split_preps_can_fail():
    assert split_preps("in front of next to in") == ["in front of", "next to", "in"]
    assert split_preps("in front") is None
    assert split_preps("up") is None


# ------------------------------------------------------------------ German


def german_mismatches(r: dict[str, str]) -> dict[str, tuple[str, str]]:
    """field -> (row, ablaut) for every German field where the row differs from ablaut.
    Finite forms are compared whole (prefix glued on), the split itself as the field 'prefix'."""
    c = conjugation(r["de"])
    prefix = _split(c.present[0])[1]
    imp = c.imperative[0] if c.imperative and c.imperative[0] else ""

    def whole(form: str) -> str:
        finite, pre = _split(form)
        return pre + finite

    ours = {
        "prefix": r["prefix"],
        "de_present": " ".join(r["prefix"] + f for f in r["de_present"].split()),
        "de_preterite": " ".join(r["prefix"] + f for f in r["de_preterite"].split()),
        "de_participle": r["de_participle"],
        "aux": r["aux"],
        "de_imperative": r["prefix"] + r["de_imperative"] if r["de_imperative"] else "",
    }
    theirs = {
        "prefix": prefix,
        "de_present": " ".join(whole(f) for f in c.present),
        "de_preterite": " ".join(whole(f) for f in c.preterite),
        "de_participle": c.past_participle,
        "aux": c.auxiliary,
        "de_imperative": whole(imp) if imp else "",
    }
    return {f: (ours[f], theirs[f]) for f in GERMAN_FIELDS if ours[f] != theirs[f]}


def test_german_forms_agree_with_ablaut():
    problems, used = [], set()
    for r in rows():
        if r["prefix"] and not r["de"].startswith(r["prefix"]):
            problems.append(f"{r['key']}: {r['de']} does not start with its prefix {r['prefix']}")
        for field, (ours, theirs) in german_mismatches(r).items():
            if (r["de"], field) in KNOWN_DISAGREEMENTS:
                used.add((r["de"], field))
            else:
                problems.append(f"{r['key']} ({r['de']}).{field}: {ours!r}, ablaut {theirs!r}")
    stale = set(KNOWN_DISAGREEMENTS) - used
    problems += [f"stale KNOWN_DISAGREEMENTS entry {s}: the row agrees now" for s in sorted(stale)]
    fail_all(problems, "German forms differ from ablaut")


def test_german_comparison_can_fail():
    # the comparison sees a wrong vowel, a wrong split and a wrong auxiliary
    row = {
        "de": "ankommen", "prefix": "an",
        "de_present": "komme kommst kommt kommen kommt kommen",
        "de_preterite": "kam kamst kam kamen kamt kamen", "de_participle": "angekommen",
        "aux": "sein", "de_imperative": "komm",
    }  # fmt: skip
    assert german_mismatches(row) == {}
    assert set(german_mismatches(dict(row, de_preterite="kom kamst kam kamen kamt kamen"))) == {
        "de_preterite"
    }
    unsplit = dict(row, prefix="", de_present="ankomme ankommst ankommt ankommen ankommt ankommen")
    assert "prefix" in german_mismatches(unsplit)
    assert set(german_mismatches(dict(row, aux="haben"))) == {"aux"}


# ------------------------------------------------------------------ English


def english_mismatches(r: dict[str, str]) -> dict[str, tuple[str, tuple[str, ...]]]:
    out = {}
    for field, tag in ENGLISH_TAGS.items():
        candidates = getInflection(r["en"], tag) or ()
        if r[field] not in candidates:
            out[field] = (r[field], tuple(candidates))
    return out


def test_english_forms_agree_with_lemminflect():
    problems, used = [], set()
    for r in rows():
        for field, (ours, theirs) in english_mismatches(r).items():
            if (r["en"], field) in EN_ALLOWED:
                used.add((r["en"], field))
            else:
                problems.append(f"{r['key']}.{field}: {ours!r}, lemminflect {theirs}")
    stale = set(EN_ALLOWED) - used
    problems += [f"stale EN_ALLOWED entry {s}: the row agrees now" for s in sorted(stale)]
    fail_all(problems, "English forms differ from lemminflect")


def test_english_comparison_can_fail():
    row = {"en": "go", "en_3sg": "goes", "en_past": "went", "en_participle": "gone"}
    assert english_mismatches(dict(row, en_ing="going")) == {}
    assert set(english_mismatches(dict(row, en_ing="goeing", en_past="goed"))) == {
        "en_ing",
        "en_past",
    }


# ------------------------------------------------------------------ choice and order


def test_verbs_come_in_wordfreq_order():
    rank = {}
    for i, w in enumerate(wordfreq.top_n_list("en", 30000)):
        rank.setdefault(w, i)
    missing = [r["en"] for r in rows() if r["en"] not in rank]
    assert not missing, f"not among the 30000 most frequent English words: {missing}"
    ranks = [rank[r["en"]] for r in rows()]
    out_of_order = [
        f"{a['en']} ({ra}) before {b['en']} ({rb})"
        for a, b, ra, rb in zip(rows(), rows()[1:], ranks, ranks[1:])
        if rb < ra
    ]
    fail_all(out_of_order, "rows out of wordfreq order")


def test_excluded_verbs_are_absent():
    present = sorted({r["en"] for r in rows()} & EXCLUDED)
    assert not present, f"auxiliaries / modals belong to the grammar: {present}"


def test_required_verbs():
    by_key = {r["key"]: r for r in rows()}
    problems = [
        f"{k}: {by_key[k]['de'] if k in by_key else 'missing'}, want {de}"
        for k, de in REQUIRED.items()
        if k not in by_key or by_key[k]["de"] != de
    ]
    for k, (frame, particle) in REQUIRED_FRAMES.items():
        got = (by_key[k]["frame"], by_key[k]["en_particle"]) if k in by_key else None
        if got != (frame, particle):
            problems.append(f"{k}: frame/particle {got}, want {(frame, particle)}")
    if by_key.get("wait", {}).get("de_object_prep") != "auf acc":
        problems.append("wait: want 'warten auf acc'")
    if by_key.get("put", {}).get("motion") != "1":
        problems.append("put: a verb of motion to a goal")
    fail_all(problems, "required verbs wrong")


def test_v2_1_verbs_agree_with_ablaut_and_lemminflect():
    """The verbs corpus v2.1 adds (verbs_v2_1.tsv: stop = halten for a vehicle, leave = abfahren)
    are checked like v2's, with no German exceptions and v2's English ones (EN_ALLOWED: a
    second sense of "smell" is "smelled" too)."""
    problems = []
    header, v2_1 = read("verbs_v2_1.tsv")
    assert header == read()[0]
    for r in v2_1:
        if r["prefix"] and not r["de"].startswith(r["prefix"]):
            problems.append(f"{r['key']}: {r['de']} does not start with its prefix {r['prefix']}")
        problems += [f"{r['key']}.{f}: {d}" for f, d in german_mismatches(r).items()]
        problems += [
            f"{r['key']}.{f}: {d}"
            for f, d in english_mismatches(r).items()
            if (r["en"], f) not in EN_ALLOWED
        ]
    fail_all(problems, "v2.1 verb forms differ from ablaut or lemminflect")


def test_v2_1_verb_senses_agree_with_ablaut_and_their_first_sense():
    """verb_senses_v2_1.tsv (watch a film = sehen, ask a question = stellen): verbs.tsv's columns
    after sense_of, German forms checked with ablaut, and the English forms and frame of the
    first sense, so that the sense writes the English the parser read."""
    problems = []
    header, senses = read("verb_senses_v2_1.tsv")
    assert header == ("sense_of", *read()[0])
    first = {r["key"]: r for r in (*read()[1], *read("verbs_v2_1.tsv")[1])}  # play_game too
    for r in senses:
        problems += [f"{r['key']}.{f}: {d}" for f, d in german_mismatches(r).items()]
        v = first.get(r["sense_of"])
        if v is None:
            problems.append(f"{r['key']}: no verb {r['sense_of']} in verbs(_v2_1).tsv")
            continue
        for f in ("en", "en_3sg", "en_past", "en_participle", "en_ing", "en_particle", "frame"):
            if r[f] != v[f]:
                problems.append(f"{r['key']}.{f}: {r[f]!r}, its first sense {v[f]!r}")
    fail_all(problems, "v2.1 verb senses wrong")
