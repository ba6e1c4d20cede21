"""Corpus v2.1: what a sentence says about its nouns, settled after its pronouns are linked
(`grammar.assign_refs`): a person noun takes its feminine form where the sentence says she is
a woman, and an adjective with a second sense takes the one that fits its noun. With v2's
lexicon, which has neither feminine forms nor second senses, both return every sentence as it
is, so v2's draws and readings are those of v2.
"""

from __future__ import annotations

from dataclasses import replace

from corpus import lexicon as lx
from corpus.grammar import NP, PP, Clause, Sentence, clause_slots, np_classes, with_np
from corpus.lexicon import Lexicon


def agree(sentence: Sentence, lex: Lexicon) -> Sentence:
    """The agreements, as the generator and the parser apply them after assign_refs."""
    sentence = adjective_senses(feminine_agreement(sentence, lex), lex)
    return verb_and_preposition_senses(sentence, lex)


def _is_female(lex: Lexicon, np: NP | None) -> bool:
    if np is None or np.plural or np.coord:
        return False
    if np.name:
        name = lex.name(np.name)
        return name.kind == "person" and name.sex == "f"
    if np.noun:
        return np.female or lex.noun(np.noun).sex == "f"
    return np.pronoun == "she"


def _feminine(lex: Lexicon, np: NP | None) -> NP | None:
    """The noun phrase in its feminine form, if it is a person noun that has one (v2.1)."""
    if np is None or np.noun is None or np.female or np.coord or np.plural:
        return None  # "Six reporters ... her employee": her is not six people
    noun = lex.noun(np.noun)
    if noun.sex or lex.feminine_of(noun.en) is None:
        return None
    return replace(np, female=True)


def her_only(lex: Lexicon, c: Clause) -> bool:
    """Has the clause a possessive "her" and no other woman it could stand for?"""
    others = [c.obj, c.iobj, c.pp.np if c.pp else None]
    # and the owner of a possessive 's: "edits her president's messages"
    others += [np.owner for np in others if np is not None and np.owner is not None]
    her = [np for np in others if np is not None and np.possessor == "she"]
    # "for her daughter": the daughter is not her own possessor
    return bool(her) and not any(_is_female(lex, np) for np in others if np not in her)


def feminine_agreement(sentence: Sentence, lex: Lexicon) -> Sentence:
    """Corpus v2.1: a person noun takes its feminine form where the sentence says the person
    is a woman: the antecedent of "she" ("The teacher is tired because she ..." = die
    Lehrerin ... sie) and a predicative noun of a female subject ("She is a doctor." = "Sie ist
    eine Ärztin.") or named by a woman's name ("This is my friend Anna." = "Das ist meine
    Freundin Anna."). A lexicon without feminine forms (v2) leaves every sentence as it is."""
    if not lex.feminine:
        return sentence
    clauses = list(sentence.clauses)
    second = (
        sentence.sub if sentence.sub is not None else (clauses[1] if len(clauses) > 1 else None)
    )
    if second is not None:
        for _slot, np in clause_slots(second):
            if np is not None and np.pronoun == "she" and np.ref is not None:
                first = clauses[0]
                ante = {"subject": first.subject, "object": first.obj}.get(np.ref)
                if np.ref == "pp" and first.pp is not None:
                    ante = first.pp.np
                female = _feminine(lex, ante)
                if female is not None:
                    clauses[0] = with_np(first, np.ref, female)
    # a noun "he" stands for stays masculine ("The teacher reads her book and he sleeps")
    male = (
        {np.ref for _, np in clause_slots(second) if np and np.pronoun == "he"} if second else set()
    )
    out = []
    for k, c in enumerate([*clauses, sentence.sub]):
        male_subject = k == 0 and "subject" in male
        if c is not None and not male_subject and _feminine(lex, c.subject) and her_only(lex, c):
            c = replace(c, subject=_feminine(lex, c.subject))  # "The cook bakes for her son"
        if c is not None and c.verb is None and c.complement and c.complement.np:
            female = _feminine(lex, c.complement.np)
            called = c.complement.np.called  # "This is my friend Anna." = "... meine Freundin"
            if female is not None and (
                _is_female(lex, c.subject) or (called and lex.name(called).sex == "f")
            ):
                c = replace(c, complement=replace(c.complement, np=female))
        out.append(c)
    return replace(sentence, clauses=tuple(out[:-1]), sub=out[-1])


_THINGS = frozenset({"object", "nature", "time", "event", "place"})  # what "it" may be


def _sense(lex: Lexicon, adjective: str, classes: frozenset[str]) -> str:
    """The name of the sense of an English adjective that fits nouns of `classes`."""
    senses = [a for a in lex.adjectives if a.en == adjective and a.key]
    if not senses or not classes or lex.adjective(adjective).classes & classes:
        return adjective
    return next((a.key for a in senses if a.classes & classes), adjective)


def _np_senses(lex: Lexicon, np: NP | None) -> NP | None:
    if np is None:
        return None
    if np.coord:
        return replace(np, coord=(_np_senses(lex, np.coord[0]), _np_senses(lex, np.coord[1])))  # type: ignore[arg-type]
    if np.adjective and np.noun:
        np = replace(np, adjective=_sense(lex, np.adjective, lex.noun(np.noun).classes))
    return np


def _subject_classes(lex: Lexicon, np: NP | None) -> frozenset[str]:
    if np is None:
        return frozenset()
    if np.pronoun:
        return _THINGS if np.pronoun == "it" else frozenset({"person"})
    if np.indefinite in lx.DEMONSTRATIVE:  # "This was very nice." = "Das war sehr schön."
        return _THINGS
    return np_classes(lex, np)


def adjective_senses(sentence: Sentence, lex: Lexicon) -> Sentence:
    """Corpus v2.1: an adjective with a second sense takes the one that fits its noun ("a nice
    man" = "ein netter Mann", "nice weather" = "schönes Wetter", "The weather is nice." = "Das
    Wetter ist schön."). v2's lexicon has no second senses."""
    if not any(a.key for a in lex.adjectives):
        return sentence

    def clause(c: Clause | None) -> Clause | None:
        if c is None:
            return None
        c = replace(
            c,
            subject=_np_senses(lex, c.subject),
            obj=_np_senses(lex, c.obj),
            iobj=_np_senses(lex, c.iobj),
            there=_np_senses(lex, c.there),
            pp=replace(c.pp, np=_np_senses(lex, c.pp.np)) if c.pp else None,  # type: ignore[arg-type]
        )
        comp = c.complement
        if comp and comp.np:
            c = replace(c, complement=replace(comp, np=_np_senses(lex, comp.np)))
        if comp and comp.adjective and not comp.than:
            adjective = _sense(lex, comp.adjective, _subject_classes(lex, c.subject))
            c = replace(c, complement=replace(comp, adjective=adjective))
        return c

    return replace(
        sentence,
        clauses=tuple(clause(c) for c in sentence.clauses),  # type: ignore[misc]
        sub=clause(sentence.sub),
    )


# --------------------------------------------------- senses of verbs and prepositions


def verb_and_preposition_senses(sentence: Sentence, lex: Lexicon) -> Sentence:
    """Corpus v2.1: a verb or a preposition with a second sense takes the one its nouns fit
    (data/verb_senses_v2_1.tsv, data/prepositions_v2_1.tsv): "watched the film" = "sahen den
    Film" (beobachten stays for animals), "asked a question" = "stellte eine Frage", "the lamp
    does not work" = "funktioniert nicht", "at the supermarket" = "im Supermarkt", "in German" =
    "auf Deutsch". Relative clauses too, whose gap is their head noun; a pronoun of the second
    clause counts as the noun it stands for ("because I left it outside": it is the jacket). v2's
    lexicon has no second senses."""
    if not lex.verb_senses and not lex.preposition_senses:
        return sentence
    first = sentence.clauses[0] if sentence.clauses else None

    def stands_for(np: NP | None) -> NP | None:
        if np is None or np.ref is None or first is None:
            return np
        return {"subject": first.subject, "object": first.obj}.get(
            np.ref, first.pp.np if np.ref == "pp" and first.pp else None
        )

    def clause(c: Clause | None, head: NP | None = None) -> Clause | None:
        if c is None:
            return None
        whose = stands_for(c.iobj) or (head if c.gap == "subject" else stands_for(c.subject))
        c = replace(
            c,
            subject=_noun_sense(lex, noun_phrase(c.subject), verb=c.verb),
            obj=_noun_sense(lex, noun_phrase(c.obj), whose=whose),
            iobj=noun_phrase(c.iobj),
            there=noun_phrase(c.there),
            pp=preposition(c.pp, amount=_amount(lex, c.obj)),
        )
        comp = c.complement
        if comp is not None and (comp.np or comp.pp):
            comp = replace(comp, np=noun_phrase(comp.np), pp=preposition(comp.pp))
            c = replace(c, complement=comp)
        if c.verb is None:
            return c
        subject = head if c.gap == "subject" else stands_for(c.subject)
        obj = head if c.gap == "object" else stands_for(c.obj)
        goal = (
            c.pp.np if c.pp and lex.preposition(c.pp.prep).en[0] in lx.GOAL_PREPOSITIONS else None
        )
        return replace(c, verb=_verb_sense(lex, c.verb, subject, obj, goal))

    def noun_phrase(np: NP | None) -> NP | None:
        if np is None:
            return None
        if np.coord:
            return replace(np, coord=(noun_phrase(np.coord[0]), noun_phrase(np.coord[1])))  # type: ignore[arg-type]
        if np.relative is not None:
            rel = np.relative
            np = replace(np, relative=replace(rel, clause=clause(rel.clause, head=np)))
        return np

    def preposition(pp: PP | None, amount: bool = False) -> PP | None:
        if pp is None:
            return None
        key = pp.prep if pp.prep == "of" and not amount else _preposition_sense(lex, pp.prep, pp.np)
        return PP(key, _noun_sense(lex, noun_phrase(pp.np), prep=pp.prep))  # type: ignore[arg-type]

    return replace(
        sentence,
        clauses=tuple(clause(c) for c in sentence.clauses),  # type: ignore[misc]
        sub=clause(sentence.sub),
    )


def _amount(lex: Lexicon, np: NP | None) -> bool:
    """Is this object an amount that "of" + a substance fills (three cups of coffee)?"""
    return np is not None and np.noun is not None and "object" in lex.noun(np.noun).classes


def _verb_sense(
    lex: Lexicon, key: str, subject: NP | None, obj: NP | None, goal: NP | None = None
) -> str:
    """The first sense of the verb whose differing slots its nouns fill, else the verb. A sense
    of lexicon.GOAL_KINDS is taken by where the verb goes instead: `goal`, the noun after "to"
    or "into", a name of its kinds ("went to Paris" = "fuhren nach Paris")."""
    v = lex.verb(key)
    for sense in lex.senses_of_verb(key):
        kinds = lx.GOAL_KINDS.get(sense.key)
        if kinds is not None:
            if goal is not None and _name_kinds(lex, goal) & kinds:
                return sense.key
            continue
        slots = ((sense.subject, v.subject, subject), (sense.obj, v.obj, obj))
        if all(
            wanted == first or (np is not None and bool(np_classes(lex, np) & wanted))
            for wanted, first, np in slots
        ):
            return sense.key
    return key


def _name_kinds(lex: Lexicon, np: NP) -> frozenset[str]:
    """The kinds of the names a noun phrase is (names.tsv: city, country), both of "Paris and
    London"; none for a noun or a pronoun."""
    if np.coord:
        return _name_kinds(lex, np.coord[0]) & _name_kinds(lex, np.coord[1])
    return frozenset({lex.name(np.name).kind}) if np.name else frozenset()


def _preposition_sense(lex: Lexicon, key: str, np: NP) -> str:
    """The first sense of the preposition that fits its noun where the first sense does not,
    or that names a class of its noun that only chooses senses (lexicon.SENSE_CLASSES: "to the
    cinema" = "ins Kino", a venue, though "to" fits any building)."""
    classes = np_classes(lex, np)
    senses = lex.senses_of_preposition(key)
    marked = classes & lx.SENSE_CLASSES
    chosen = next((p.key for p in senses if p.classes & marked), None)
    if chosen is not None:
        return chosen
    if not classes or lex.preposition(key).classes & classes:
        return key
    return next((p.key for p in senses if p.classes & classes), key)


# what a noun sense of mass 1 is said with: one of it, never "a lesson", "two lessons"
_ONE_OF_IT = frozenset({"the", "this", "poss", "bare"})


def _noun_sense(
    lex: Lexicon,
    np: NP | None,
    whose: NP | None = None,
    verb: str | None = None,
    prep: str | None = None,
) -> NP | None:
    """The noun's second sense (noun_senses_v2_1.tsv) where its sentence says so: an object
    for one of the sense's `whose` classes ("The duck is looking for food" = "sucht Futter"), a
    subject of one of its verbs ("the lesson starts" = "der Unterricht fängt an"), after one of
    its prepositions ("during the lesson" = "während des Unterrichts")."""
    if np is None or np.noun is None or np.coord or not lex.noun_senses:
        return np
    for sense in lex.senses_of_noun(np.noun):
        if sense.noun.mass and (np.plural or np.det not in _ONE_OF_IT):
            continue
        if (
            (whose is not None and bool(sense.whose & np_classes(lex, whose)))
            or (verb is not None and verb in sense.verbs)
            or (prep is not None and prep in sense.preps)
        ):
            return replace(np, noun=sense.noun.key)
    return np
