"""The reference translation of a typed English sentence, when the grammar can generate it.

A permissive backtracking parser proposes sentence specs for the tokens; a spec is accepted
only if `grammar.build` writes exactly the typed tokens again, so agreement, do-support, word
forms and the rest are checked by the very code that writes the training data. The verb group
is matched the same way: each candidate (verb, tense, modal, negation) is written out by the
grammar's own `_verb_group` and compared with the tokens.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cache

from corpus import grammar
from corpus import lexicon as lx
from corpus.agreement import agree
from corpus.grammar import NP, PP, Clause, Complement, Example, Relative, Sentence
from corpus.lexicon import Lexicon

_TOKEN = re.compile(r"[A-Za-zÀ-ÿ]+(?:'[A-Za-z]+|(?<=s)')?|\d+|[.,?!]")


def tokenize(text: str) -> list[str]:
    """Typed English -> the grammar's tokens: words (contractions like "didn't" and the
    plural possessive "students'" stay one token), digits, punctuation."""
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    return _TOKEN.findall(text)


def normalize(text: str) -> list[str]:
    """Tokens of a typed sentence, with the final full stop added if it has none and the
    comma the grammar writes before a clause-joining "but"."""
    toks = tokenize(text)
    if toks and toks[-1] not in (".", "?", "!"):
        toks.append(".")
    out: list[str] = []
    for i, tok in enumerate(toks):
        if tok.lower() == "but" and i > 0 and out[-1] != ",":
            out.append(",")
        out.append(tok)
    return out


_TENSES = ("present", "past", "perfect", "pluperfect", "progressive", "future")
_POLARITY = ((False, False), (True, False), (True, True))  # negated, contracted


@dataclass(frozen=True)
class _Index:
    """Word form -> lexicon entries, built once per lexicon."""

    nouns: dict[str, list[tuple[str, bool]]]
    verbs: dict[str, set[str]]
    adjectives: frozenset[str]
    adverbs: dict[tuple[str, ...], str]
    preps: dict[tuple[str, ...], str]
    names: dict[str, str]
    grades: dict[tuple[str, ...], tuple[str, str]]  # v2.1: "bigger" -> (big, comparative)


@cache
def _index(lex: Lexicon) -> _Index:
    nouns: dict[str, list[tuple[str, bool]]] = {}
    for n in lex.nouns:
        nouns.setdefault(n.en.lower(), []).append((n.en, False))
        if not n.mass and n.en_plural != n.en:
            nouns.setdefault(n.en_plural.lower(), []).append((n.en, True))
    verbs: dict[str, set[str]] = {}
    for v in lex.verbs:
        for form in (v.en, v.en_3sg, v.en_past, v.en_participle, v.en_ing):
            verbs.setdefault(form.lower(), set()).add(v.key)
    return _Index(
        nouns=nouns,
        verbs=verbs,
        adjectives=frozenset(a.en.lower() for a in lex.adjectives),
        adverbs={tuple(w.lower() for w in a.en): " ".join(a.en) for a in lex.adverbs},
        preps={tuple(w.lower() for w in p.en): " ".join(p.en) for p in lex.prepositions},
        names={n.en.lower(): n.en for n in lex.names},
        grades={
            words: (g.en, grade)
            for g in lex.grades
            for words, grade in (
                (g.en_comparative, "comparative"),
                (g.en_superlative, "superlative"),
            )
        },
    )


_PRONOUN_FORMS: dict[tuple[str, ...], str] = {}
for _p in lx.PRONOUNS:
    for _form in (_p.en_subject, _p.en_object):
        _PRONOUN_FORMS[tuple(_form.lower().split())] = _p.key
_POSSESSOR = {p.en_possessive: p.key for p in lx.POSSESSIVES}


@cache
def _group_words(
    lex: Lexicon,
    verb: str | None,
    tense: str,
    modal: str | None,
    negated: bool,
    contracted: bool,
    person: int,
    inverted: bool,
    there: bool,
) -> tuple[tuple[str, ...], tuple[str, ...], int] | None:
    """The English words of a verb group as the grammar writes them: (before the subject in
    a question, after the subject, where a frequency adverb goes)."""
    b = grammar._Builder(lex)
    subject = None if there else NP(pronoun="it")
    c = Clause(
        subject,
        verb,
        there=NP("x") if there else None,
        tense=tense,
        modal=modal,
        negated=negated,
        contracted=contracted,
        question=inverted,
    )
    try:
        vg = grammar._verb_group(b, c, person, inverted, None)
    except ValueError:
        return None
    return (
        tuple(b.words[i].lower() for i in vg.front),
        tuple(b.words[i].lower() for i in vg.rest),
        vg.adv_slot,
    )


class _Parser:
    def __init__(self, lex: Lexicon, toks: list[str]) -> None:
        self.lex = lex
        self.ix = _index(lex)
        self.t = [w.lower() for w in toks]

    def at(self, i: int) -> str | None:
        return self.t[i] if i < len(self.t) else None

    def match(self, i: int, words: tuple[str, ...]) -> bool:
        return tuple(self.t[i : i + len(words)]) == words

    # ------------------------------------------------------------ noun phrases
    def np(self, i: int, relative: bool = True, coord: bool = True) -> Iterator[tuple[NP, int]]:
        for simple, j in self._np_simple(i, relative):
            yield simple, j
            if coord and self.at(j) == "and" and not simple.pronoun:
                for right, k in self._np_simple(j + 1, relative=False):
                    if not right.pronoun:
                        yield NP(coord=(simple, right)), k

    def _np_simple(self, i: int, relative: bool) -> Iterator[tuple[NP, int]]:
        if self.lex.version != "v2" and self.at(i) in lx.INDEFINITE:
            yield NP(indefinite=self.at(i)), i + 1  # v2.1: nothing, nobody, anything ...
        if self.lex.version != "v2" and self.at(i) in lx.DEMONSTRATIVE:
            copula = ("is", "was", "isn't", "wasn't")
            if self.at(i + 1) in copula or (
                i > 0 and self.t[i - 1] in copula
            ):  # "This is my friend."
                yield NP(indefinite=self.at(i)), i + 1
        if self.lex.version != "v2":
            yield from self._saxon(i, relative)
        for n in (2, 1):
            key = _PRONOUN_FORMS.get(tuple(self.t[i : i + n]))
            if key:
                yield NP(pronoun=key), i + n
        tok = self.at(i)
        if tok is None:
            return
        if tok in self.ix.names:
            yield from self._relatives(NP(name=self.ix.names[tok]), i + 1, relative)
        det, number, possessor, j = "bare", None, None, i
        if tok in ("the", "a", "an", "no"):
            det, j = ("a" if tok == "an" else tok), i + 1
        elif tok in ("this", "these"):
            det, j = "this", i + 1
        elif tok in ("many", "any"):
            det, j = tok, i + 1
        elif tok in ("each", "every") and self.lex.version != "v2":
            det, j = tok, i + 1
        elif tok in lx.NUMBER_WORDS or (self.lex.version != "v2" and tok in lx.ALL_NUMBER_WORDS):
            det, number, j = "number", tok, i + 1
        elif tok.isdigit():
            det, number, j = "digits", tok, i + 1
        elif tok in _POSSESSOR:
            det, possessor, j = "poss", _POSSESSOR[tok], i + 1
        for adjective, k in ((None, j), (self.at(j), j + 1)):
            if adjective is not None and adjective not in self.ix.adjectives:
                continue
            for noun, plural in self.ix.nouns.get(self.at(k) or "", []):
                if det in ("each", "every") and (plural or self.lex.noun(noun).mass):
                    continue  # "each word", never "*each words"
                if det == "bare" and not plural and not self.lex.noun(noun).mass:
                    # the generator writes no bare singular count noun: read as one, "the train
                    # station" became a subject "the train" and a complement "station"
                    continue
                np = NP(noun, det, plural, adjective, number, possessor)
                yield from self._relatives(np, k + 1, relative)
        for words, (adjective, grade) in self.ix.grades.items():  # v2.1: "the biggest animal"
            if not self.match(j, words):
                continue
            k = j + len(words)
            for noun, plural in self.ix.nouns.get(self.at(k) or "", []):
                if det in ("each", "every") and (plural or self.lex.noun(noun).mass):
                    continue  # "each word", never "*each words"
                if det == "bare" and not plural and not self.lex.noun(noun).mass:
                    continue
                np = NP(noun, det, plural, adjective, number, possessor, grade=grade)
                yield from self._relatives(np, k + 1, relative)

    def _saxon(self, i: int, relative: bool) -> Iterator[tuple[NP, int]]:
        """v2.1: "the doctor's (new) car", "Anna's brother": an owner whose last word ends in
        's, then the head noun, which the owner makes definite."""
        for j in range(i, min(i + 4, len(self.t))):
            plural = self.t[j].endswith("s'")  # "the students' books"
            if not (self.t[j].endswith("'s") or plural):
                continue
            words = self.t[i:j] + [self.t[j][: -1 if plural else -2]]
            owners = []
            if words[0] in self.ix.names and not plural:
                owners = [NP(name=self.ix.names[words[0]])]
            inner = _Parser(self.lex, words)
            owners += [
                np
                for np, end in inner.np(0, relative=False, coord=False)
                if end == len(words) and (np.plural or not plural)
            ]
            for owner in owners:
                if owner.pronoun or owner.indefinite or (owner.name and len(words) > 1):
                    continue
                for adjective, k in ((None, j + 1), (self.at(j + 1), j + 2)):
                    if adjective is not None and adjective not in self.ix.adjectives:
                        continue
                    for noun, plural in self.ix.nouns.get(self.at(k) or "", []):
                        np = NP(noun, "the", plural, adjective, owner=owner)
                        yield from self._relatives(np, k + 1, relative)
            return

    def _relatives(self, np: NP, i: int, relative: bool) -> Iterator[tuple[NP, int]]:
        yield np, i
        pron = self.at(i)
        if not relative or pron not in ("who", "whom", "which", "that"):
            return
        person = grammar._person(np) if not np.name else 2
        # the head is the relative clause's subject: "who reads the book"
        # longest first: a phrase after the relative clause belongs to it ("who lives in
        # the house"), as the generator writes it
        found = [
            (c, k)
            for fields, j in self.verb_group(i + 1, person)
            for c, k in self.rest(Clause(None, gap="subject", **fields), j, sub=False)
        ]
        for c, k in sorted(found, key=lambda ck: -ck[1]):
            yield replace(np, relative=Relative(pron, c)), k
        # ... or its object: "that the man reads"
        for subj, j in self.np(i + 1, relative=False):
            for fields, k in self.verb_group(j, grammar._person(subj)):
                if fields.get("verb") is None:
                    continue
                for c, m in self.rest(
                    Clause(subj, gap="object", **fields), k, sub=False, gap_object=True
                ):
                    yield replace(np, relative=Relative(pron, c)), m

    # -------------------------------------------------------------- verb group
    def _verb_candidates(self, i: int) -> list[str | None]:
        keys: set[str] = set()
        for tok in self.t[i : i + 5]:
            keys |= self.ix.verbs.get(tok, set())
        return [None, *sorted(keys)]

    def verb_group(
        self,
        i: int,
        person: int,
        inverted_front: tuple[str, ...] | None = None,
        there: bool = False,
    ) -> Iterator[tuple[dict, int]]:
        """Verb groups starting at i (after the subject). For a question, `inverted_front`
        is the auxiliary already read before the subject."""
        inverted = inverted_front is not None
        for verb in self._verb_candidates(i) if not there else [None]:
            modals: list[str | None] = [None] + (
                [m.key for m in lx.modals(self.lex)] if verb else []
            )
            for modal in modals:
                tenses = (
                    _TENSES
                    if not modal
                    else ("present", "past")
                    if modal == "can"
                    else ("present",)
                )
                for tense in tenses:
                    for negated, contracted in _POLARITY:
                        if inverted and contracted:
                            continue
                        words = _group_words(
                            self.lex,
                            verb,
                            tense,
                            modal,
                            negated,
                            contracted,
                            person,
                            inverted,
                            there,
                        )
                        if words is None:
                            continue
                        front, rest, slot = words
                        if inverted and front != inverted_front:
                            continue
                        fields = {
                            "verb": verb,
                            "tense": tense,
                            "modal": modal,
                            "negated": negated,
                            "contracted": contracted,
                        }
                        if self.match(i, rest):
                            yield fields, i + len(rest)
                        # a frequency adverb inside the group: "has often seen"
                        before = rest[:slot]
                        if self.match(i, before):
                            for adv, j in self.adverbs(i + len(before), kinds=("frequency",)):
                                if self.match(j, rest[slot:]):
                                    yield dict(fields, adverb=adv), j + len(rest) - slot

    def adverbs(self, i: int, kinds: tuple[str, ...] | None = None) -> Iterator[tuple[str, int]]:
        for words, key in self.ix.adverbs.items():
            kind = self.lex.adverb(key).kind
            if kind == "goal":  # v2.1's goals of motion are a clause's `place`
                continue
            if self.match(i, words) and (kinds is None or kind in kinds):
                yield key, i + len(words)

    def places(self, c: Clause, i: int) -> Iterator[tuple[Clause, int]]:
        """v2.1: where a verb of motion goes ("goes home", "went to school"), or where the
        clause happens, beside another adverb ("The children are at home today.")."""
        if self.lex.version == "v2" or c.place is not None:
            return
        motion = c.verb is not None and self.lex.verb(c.verb).motion
        for words, key in self.ix.adverbs.items():
            kind = self.lex.adverb(key).kind
            if kind == ("goal" if motion else "place") and self.match(i, words):
                yield replace(c, place=key), i + len(words)

    def pp(self, i: int) -> Iterator[tuple[PP, int]]:
        for words, key in self.ix.preps.items():
            if self.match(i, words):
                for np, j in self.np(i + len(words), relative=False, coord=False):
                    yield PP(key, np), j

    # ------------------------------------------------------------- the rest
    def rest(
        self, c: Clause, i: int, sub: bool, gap_object: bool = False
    ) -> Iterator[tuple[Clause, int]]:
        """Objects / complement, then (v2.1) a place or goal, an optional PP and an optional
        adverb."""
        for objects, j in self._objects(c, i, gap_object):
            places = list(self.places(objects, j))
            # v2.1: words that say a goal or a place are read so, not as a phrase ("goes to
            # sleep" = "schlafen geht", never "zu Schlaf")
            said = {(j, end) for _, end in places}
            for filled, k in [(objects, j), *places]:
                options = [(filled, k)]
                options += [
                    (replace(filled, pp=pp), m)
                    for pp, m in self.pp(k)
                    if not (self._dative_pp(filled, pp) or self._particle_pp(filled, pp))
                    and (k, m) not in said
                ]
                for f, m in options:
                    yield f, m
                    if f.adverb is None:
                        for adv, n in self.adverbs(m):
                            yield replace(f, adverb=adv), n

    def _objects(self, c: Clause, i: int, gap_object: bool) -> Iterator[tuple[Clause, int]]:
        if c.verb is None:
            if c.there is not None or gap_object:
                yield c, i
                return
            yield from self._adjective(c, i)
            yield from self._comparison(c, i)
            if self.lex.version != "v2" and self._age(i):  # v2.1: "ten years old"
                yield replace(c, complement=Complement(age=self.at(i))), i + 3
            for np, j in self.np(i, relative=False):
                yield replace(c, complement=Complement(np=np)), j
                if np.det == "poss" and c.subject and c.subject.indefinite in lx.DEMONSTRATIVE:
                    name = self.ix.names.get(self.at(j) or "")
                    if name is not None:  # v2.1: "This is my friend Peter."
                        yield replace(c, complement=Complement(np=replace(np, called=name))), j + 1
            for pp, j in self.pp(i):
                yield replace(c, complement=Complement(pp=pp)), j
            yield c, i  # "Where is the cat?"
            return
        v = self.lex.verb(c.verb)
        if v.frame == "adj":  # v2.1: "The soup tastes good." = "Die Suppe schmeckt gut."
            yield from self._adjective(c, i)
            return
        if v.frame == "that" and v.obj and not gap_object:  # v2.1: "told me that ..."
            for obj, k in self.np(i, relative=False):
                yield replace(c, obj=obj), k
            return
        if v.frame in ("intrans", "that") or (gap_object and v.frame in ("acc", "dat")):
            yield c, i
            if v.frame == "intrans" and not gap_object:  # v2.1: "Tom runs faster than Paul."
                for found, k in self._comparison(c, i):
                    if found.complement.adjective in lx.ADVERBIAL_GRADES:  # type: ignore[union-attr]
                        yield found, k
            return
        particle = tuple(v.en_particle.lower().split())  # v2.1: "pay attention to" is two
        at_particle = self.match(i, particle)
        # v2.1: "waited for 15 minutes" says how long (15 Minuten), not what for (auf)
        how_long = bool(particle) and at_particle and any(self.adverbs(i, kinds=("duration",)))
        if (
            v.key in lx.OBJECT_OPTIONAL
            and c.obj is None
            and (not (particle and at_particle) or how_long)
        ):
            yield c, i  # "The children are eating."
        if how_long:
            return
        j = i
        if particle:
            if not at_particle:
                if c.obj is not None:  # a question word is the object
                    yield c, i
                return
            j = i + len(particle)
        if c.obj is not None:  # "What does the woman eat?": the object is the question word
            if v.frame == "dat_acc":
                for iobj, k in self.np(j):
                    yield replace(c, iobj=iobj), k
                for iobj, k in self._to_dative(v, j):  # "What do you give to the man?"
                    yield replace(c, iobj=iobj, to_dative=True), k
            else:
                yield c, i
            return
        if v.frame == "dat_acc":
            for iobj, k in self.np(j):
                for obj, m in self.np(k):
                    yield replace(c, iobj=iobj, obj=obj), m
            for obj, k in self.np(j):
                for iobj, m in self._to_dative(v, k):
                    yield replace(c, iobj=iobj, obj=obj, to_dative=True), m
            return
        for obj, k in self.np(j):
            yield replace(c, obj=obj), k
            if v.key in lx.DATIVE_TO:
                for iobj, m in self._to_dative(v, k):
                    yield replace(c, obj=obj, iobj=iobj, to_dative=True), m

    def _adjective(self, c: Clause, i: int) -> Iterator[tuple[Clause, int]]:
        """A predicative adjective, alone or after very or too: "(is) very tired"."""
        for degree in (None, "very", "too"):
            j = i + (degree is not None)
            if degree and self.at(i) != degree:
                continue
            if self.at(j) in self.ix.adjectives and self.lex.adjective(self.at(j)).classes:
                comp = Complement(adjective=self.at(j), degree=degree)
                yield replace(c, complement=comp), j + 1

    def _comparison(self, c: Clause, i: int) -> Iterator[tuple[Clause, int]]:
        """v2.1: "bigger than the dog", "more interesting than the film", "as old as Tom"."""
        for words, (adjective, grade) in self.ix.grades.items():
            if grade == "comparative" and self.match(i, words):
                j = i + len(words)
                comp = Complement(adjective=adjective, degree="comparative")
                if self.at(j) == "than":
                    for np, k in self.np(j + 1, relative=False):
                        yield replace(c, complement=replace(comp, than=np)), k
        if self.lex.version == "v2" or self.at(i) != "as" or self.at(i + 2) != "as":
            return
        if self.at(i + 1) in self.ix.adjectives:
            for np, k in self.np(i + 3, relative=False):
                comp = Complement(adjective=self.at(i + 1), degree="equal", than=np)
                yield replace(c, complement=comp), k

    def _age(self, i: int) -> bool:
        number = self.at(i) or ""
        if not (number in lx.ALL_NUMBER_WORDS or number.isdigit()) or self.at(i + 2) != "old":
            return False
        return self.at(i + 1) == ("year" if number in ("one", "1") else "years")

    def _to_dative(self, v: lx.Verb, i: int) -> Iterator[tuple[NP, int]]:
        """v2.1: "to" and the person a thing is given to ("gives the book to the man"). Only
        what the verb's dative accepts: "sends the letter to Berlin" is a place, not a
        dative."""
        if self.lex.version == "v2" or self.at(i) != "to":
            return
        for iobj, k in self.np(i + 1, relative=False):
            if self._dative_fits(v, iobj):
                yield iobj, k

    def _dative_fits(self, v: lx.Verb, np: NP) -> bool:
        if np.coord:
            return all(self._dative_fits(v, part) for part in np.coord)
        classes = v.iobj if v.frame == "dat_acc" else lx.DATIVE_TO_CLASSES
        return np.pronoun is not None or bool(grammar.np_classes(self.lex, np) & classes)

    def _particle_pp(self, c: Clause, pp: PP) -> bool:
        """v2.1: "waits at home for the children" is no "für": the particle of the verb (or of
        its namesake: wait_intrans and wait) starts its object (warten auf), never a free
        phrase."""
        if self.lex.version == "v2" or c.verb is None or c.obj is not None:
            return False
        en = self.lex.verb(c.verb).en
        return any(v.en == en and v.en_particle.lower() == pp.prep for v in self.lex.verbs)

    def _dative_pp(self, c: Clause, pp: PP) -> bool:
        """v2.1: "to" + a person after a verb that gives is its dative, never "zu" + dative
        ("gave her bread to the birds" = "gab den Vögeln ihr Brot")."""
        if self.lex.version == "v2" or pp.prep != "to" or c.verb is None:
            return False
        v = self.lex.verb(c.verb)
        dative = v.frame == "dat_acc" or v.key in lx.DATIVE_TO
        return dative and self._dative_fits(v, pp.np)

    # ---------------------------------------------------------------- clauses
    def named(self, i: int, question: bool = False) -> Iterator[tuple[Clause, int]]:
        """v2.1: "My name is Paul." (question: "Is your name Paul?", "What is your name?")."""
        if self.lex.version == "v2":
            return
        tenses = {"is": "present", "was": "past"}
        if question and self.at(i) == "what" and self.at(i + 1) in tenses:
            owner = _POSSESSOR.get(self.at(i + 2) or "")
            if owner in lx.NAMED and self.at(i + 3) == "name":
                yield Clause(NP(pronoun=owner), named="what", tense=tenses[self.at(i + 1)]), i + 4
            return
        be, j = (self.at(i), i + 1) if question else (None, i)
        owner = _POSSESSOR.get(self.at(j) or "")
        if owner not in lx.NAMED or self.at(j + 1) != "name":
            return
        if not question:
            be = self.at(j + 2)
            j += 1
        name = self.ix.names.get(self.at(j + 2) or "")
        if be in tenses and name and self.lex.name(name).kind == "person":
            c = Clause(NP(pronoun=owner), named=name, tense=tenses[be], question=question)
            yield c, j + 3

    def clause(self, i: int, sub: bool = False) -> Iterator[tuple[Clause, int]]:
        yield from self.named(i)
        starts: list[tuple[str | None, int]] = [(None, i)]
        if not sub:
            starts += [(adv, j) for adv, j in self.adverbs(i)]
        for adverb, j in starts:
            if self.at(j) == "there":
                for person in (2, 5):
                    for fields, k in self.verb_group(j + 1, person, there=True):
                        for fields2, k2 in self._there_np(fields, k):
                            yield from self._finish(
                                Clause(None, **fields2), k2, sub, adverb, front=adverb is not None
                            )
                continue
            for subj, k in self.np(j):
                for fields, m in self.verb_group(k, grammar._person(subj)):
                    c = Clause(subj, **fields)
                    yield from self._finish(c, m, sub, adverb, front=adverb is not None)

    def _there_np(self, fields: dict, i: int) -> Iterator[tuple[dict, int]]:
        for np, j in self.np(i, relative=False, coord=False):
            yield dict(fields, there=np), j

    def _finish(
        self, c: Clause, i: int, sub: bool, adverb: str | None, front: bool
    ) -> Iterator[tuple[Clause, int]]:
        if adverb is not None:
            if c.adverb is not None:
                return
            c = replace(c, adverb=adverb, adverb_front=front)
        yield from self.rest(c, i, sub)

    def question(self, i: int) -> Iterator[tuple[Clause, int]]:
        """Yes/no questions and wh-questions (the tokens before "?")."""
        yield from self.named(i, question=True)
        tok = self.at(i)
        # "Who reads the book?": the question word is the subject, no inversion
        if tok == "who":
            for fields, j in self.verb_group(i + 1, 2):
                yield from self.rest(Clause(NP(wh="who"), **fields), j, sub=False)
        if tok == "how" and self.at(i + 1) in self.ix.adjectives:  # "How old is the man?"
            adjective = self.at(i + 1)
            front = tuple(self.t[i + 2 : i + 3])
            for subj, j in self.np(i + 3):
                for fields, k in self.verb_group(j, grammar._person(subj), front):
                    if fields["verb"] is None:
                        comp = Complement(adjective=adjective)
                        yield Clause(subj, wh="how", complement=comp, **fields), k
        wh_adverb = tok if tok in lx.WH_ADVERBS else None
        wh_object = tok if tok in ("who", "whom", "what") else None
        start = i + 1 if (wh_adverb or wh_object) else i
        # the auxiliary is one word ("does", "is", "can"); "there" may stand for the subject
        front = tuple(self.t[start : start + 1])
        if self.at(start + 1) == "there":
            for person in (2, 5):
                for fields, k in self.verb_group(start + 2, person, front, there=True):
                    for f2, k2 in self._there_np(fields, k):
                        yield from self.rest(Clause(None, question=True, **f2), k2, sub=False)
            return
        for subj, j in self.np(start + 1):
            for fields, k in self.verb_group(j, grammar._person(subj), front):
                c = Clause(subj, question=wh_adverb is None and wh_object is None, **fields)
                if wh_adverb:
                    c = replace(c, wh=wh_adverb)
                if wh_object:
                    c = replace(c, obj=NP(wh="who" if wh_object == "whom" else wh_object))
                yield from self.rest(c, k, sub=False)

    def imperative(self, i: int) -> Iterator[tuple[Clause, int]]:
        please = self.at(i) == "please"
        j = i + please
        for negated, contracted, skip in ((False, False, 0), (True, True, 1), (True, False, 2)):
            if negated and tuple(self.t[j : j + skip]) not in (("don't",), ("do", "not")):
                continue
            for key in sorted(self.ix.verbs.get(self.at(j + skip) or "", set())):
                if self.lex.verb(key).en.lower() != self.at(j + skip):
                    continue
                c = Clause(
                    None,
                    key,
                    imperative=True,
                    please=please,
                    negated=negated,
                    contracted=contracted,
                )
                for found, end in self.rest(c, j + skip + 1, sub=False):
                    addressed = found.obj is not None and found.obj.pronoun in ("you", "you_all")
                    if self.lex.version == "v2" or not addressed:
                        # v2.1: "Thank you all for ..." is no order to thank oneself
                        yield found, end


def _sentences(lex: Lexicon, toks: list[str]) -> Iterator[Sentence]:
    if not toks or toks[-1] not in (".", "?", "!"):
        return
    punct = toks[-1]
    words = tuple(w.lower() for w in toks[:-1])
    # v2.1: "Thank you very much." whole, else the longest phrase before a comma ("Excuse me,
    # where is the station?")
    for phrase in lex.phrases:
        if words == phrase.en and punct in phrase.punct:
            yield Sentence((), punct=punct, phrase=" ".join(phrase.en))
    for phrase in sorted(lex.phrases, key=lambda p: -len(p.en)):
        n = len(phrase.en)
        if words[:n] == phrase.en and words[n : n + 1] == (",",):
            for rest in _sentences(lex, toks[n + 1 :]):
                if rest.phrase is None:
                    yield replace(rest, phrase=" ".join(phrase.en))
    p = _Parser(lex, toks[:-1])
    n = len(toks) - 1
    if punct == "?":
        for c, end in p.question(0):
            if end == n:
                yield Sentence((c,), punct="?")
            elif lex.version != "v2" and c.verb and lex.verb(c.verb).frame == "that":
                # v2.1: "Do you think (that) the dog is dangerous?"
                omitted = p.at(end) != "that"
                for sub, end2 in p.clause(end + (not omitted), sub=True):
                    if end2 == n:
                        yield Sentence((c,), conj="that", sub=sub, punct="?", that_omitted=omitted)
        return
    for c, end in p.imperative(0):
        if end == n:
            yield Sentence((c,), punct=punct)
    # a fronted subordinate clause: "When the sun shines, the children play."
    if p.at(0) in lx.CONJUNCTIONS and p.at(0) != "that":
        for sub, comma in p.clause(1, sub=True):
            if p.at(comma) != ",":
                continue
            for main, end in p.clause(comma + 1):
                if end == n and main.adverb_front is False:
                    yield Sentence((main,), conj=p.at(0), sub=sub, sub_first=True, punct=punct)
    for c, end in p.clause(0):
        if end == n:
            yield Sentence((c,), punct=punct)
            continue
        word = p.at(end)
        if word == "," and p.at(end + 1) == "but":
            for c2, end2 in p.clause(end + 2):
                if end2 == n:
                    yield Sentence((c, c2), coordinator="but", punct=punct)
        if word in lx.COORDINATORS:
            for c2, end2 in p.clause(end + 1):
                if end2 == n:
                    yield Sentence((c, c2), coordinator=word, punct=punct)
        takes_that = c.verb is not None and lex.verb(c.verb).frame == "that"
        if word in lx.CONJUNCTIONS and (word == "that") == takes_that:
            for sub, end2 in p.clause(end + 1, sub=True):
                if end2 == n:
                    yield Sentence((c,), conj=word, sub=sub, punct=punct)
        if takes_that and word != "that" and lex.version != "v2":
            # v2.1: "He says the water is cold." = "Er sagt, dass das Wasser kalt ist."
            for sub, end2 in p.clause(end, sub=True):
                if end2 == n:
                    yield Sentence((c,), conj="that", sub=sub, punct=punct, that_omitted=True)


def _as_read(words) -> tuple[str, ...]:
    """Words as a derivation must match them: any case, and "a" or "an" alike (v2.1 writes "a
    user", v2 wrote "an user"; either is read)."""
    return tuple("a" if w.lower() == "an" else w.lower() for w in words)


def _misfits(spec: Sentence, lex: Lexicon) -> int:
    """How many of a derivation's subjects and objects are of a class their verb does not take
    (the selectional restrictions the generator draws by): "The bus stops." is read as the bus
    halting (stop_vehicle: halten), not as a person who gives up (stop: aufhören)."""
    count = 0
    for c in (*spec.clauses, spec.sub):
        if c is not None and lex.version != "v2" and c.adverb and c.tense in ("present", "past"):
            # v2.1: "I read 12 books last year" is the past (las), as its adverb says; "read",
            # "put", "cut" are present and past alike
            count += c.tense not in lex.adverb(c.adverb).tenses
        if c is None or c.verb is None:
            continue
        v = lex.verb(c.verb)
        for np, allowed in ((c.subject, v.subject), (c.obj, v.obj), (c.iobj, v.iobj)):
            if np is not None and allowed:
                classes = grammar.np_classes(lex, np)
                count += bool(classes) and not classes & allowed
    return count


# Derivations read before the best fitting is chosen: a typed sentence seldom has more than two.
_CANDIDATES = 8


def translations(text: str, lex: Lexicon | None = None, limit: int = 4) -> list[Example]:
    """Distinct derivations of a typed English sentence (several when it is ambiguous), by
    the newest corpus version's grammar unless `lex` is another version's lexicon; those whose
    nouns fit their verbs (`_misfits`) first, else in the parser's order."""
    lex = lex or lx.load_version(lx.LATEST)
    toks = normalize(text)
    target = _as_read(toks)
    found: list[tuple[int, Example]] = []
    for spec in _sentences(lex, toks):
        spec, _ = grammar.assign_refs(spec, lex)
        spec = agree(spec, lex)
        try:
            ex = grammar.build(spec, lex)
        except (KeyError, ValueError, AttributeError, TypeError):
            continue
        if _as_read(ex.english) == target and all(ex != seen for _, seen in found):
            found.append((_misfits(spec, lex), ex))
            fitting = sum(misfits == 0 for misfits, _ in found)
            if fitting >= limit or len(found) >= max(limit, _CANDIDATES):
                break
    found.sort(key=lambda scored: scored[0])  # stable: the parser's order among equals
    return [ex for _, ex in found[:limit]]


def translate(text: str, lex: Lexicon | None = None) -> Example | None:
    """The reference translation of a typed English sentence, or None if the grammar does
    not cover it."""
    found = translations(text, lex, limit=1)
    return found[0] if found else None
