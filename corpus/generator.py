"""Sampling corpus v2: random sentence specs, realised by `grammar.build`.

`generate(n, seed)` is deterministic in its seed. Every sentence kind of the grammar is
sampled with a fixed weight (`SENTENCE_KINDS`); the words are drawn so that the sentence makes
sense (a verb's subject and object classes, an adjective's classes), and a pronoun in a second
clause that could stand for two noun phrases of the first is never left ambiguous: the sentence
is drawn again (`grammar.assign_refs`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from functools import cached_property

from corpus import lesson
from corpus import lexicon as lx
from corpus.agreement import agree
from corpus.grammar import (
    NP,
    PP,
    Clause,
    Complement,
    Example,
    Relative,
    Sentence,
    antecedents,
    assign_refs,
    build,
    mid_position,
    np_classes,
    np_gender,
)
from corpus.lexicon import Lexicon, Noun, Verb
from corpus.parser import translate

# English sentences longer than this are drawn again; the test sets for long sentences ask
# for more.
MAX_SENTENCE_TOKENS = 28

SENTENCE_KINDS = {
    "simple": 0.30,
    "relative": 0.08,
    "question_yn": 0.07,
    "question_wh": 0.08,
    "imperative": 0.05,
    "there_is": 0.05,
    "coordination": 0.11,
    "subordinate": 0.14,
    "coreference": 0.12,
}
# Corpus v2.1 (corpus/lesson.py): v2's kinds keep their proportions among themselves and take
# a fifth of the draws; the lecturer's constructions the rest.
SENTENCE_KINDS_V2_1 = {k: round(0.2 * w, 4) for k, w in SENTENCE_KINDS.items()} | {
    "relative": 0.04,  # v2's 0.016 by the fifth: v2.1 draws "whom" and dative relatives there
    "dative_to": 0.1,
    "feminine": 0.1,
    "goal": 0.1,
    "first_lesson": 0.1,
    "time_place": 0.05,
    "question_do": 0.05,
    "negation": 0.05,
    "possessive_s": 0.05,
    "numbers": 0.05,
    "comparison": 0.05,
    "saying": 0.05,
    "idiomatic": 0.05,
}
TENSES = {"present": 0.3, "past": 0.3, "perfect": 0.12, "progressive": 0.1, "future": 0.1}
MODAL_P = 0.1
NEGATION_P = 0.2
# Prepositions of place that a "there is" sentence or a copula takes.
PLACE_PREPS = ("in", "on", "under", "behind", "next to", "in front of", "near")


def _weighted(rng: random.Random, options: dict[str, float]) -> str:
    keys = list(options)
    return rng.choices(keys, weights=[options[k] for k in keys])[0]


class Sampler:
    """Corpus v2's sampler; corpus v2.1's (`corpus.lesson.LessonSampler`) extends it."""

    kinds = SENTENCE_KINDS  # the sentence kinds this version draws, with their weights

    def __init__(self, lex: Lexicon, rng: random.Random) -> None:
        self.lex = lex
        self.rng = rng

    # ------------------------------------------------------------- word lists
    @cached_property
    def nouns_by_class(self) -> dict[str, list[Noun]]:
        # v2.1's sense classes (site: am Bahnhof) too, though nothing is drawn by them
        out: dict[str, list[Noun]] = {c: [] for c in lx.CLASSES | lx.SENSE_CLASSES}
        for n in self.lex.nouns:
            for c in n.classes:
                out[c].append(n)
        return out

    @cached_property
    def verbs_by_frame(self) -> dict[str, list[Verb]]:
        out: dict[str, list[Verb]] = {}
        for v in self.lex.verbs:
            out.setdefault(v.frame, []).append(v)
        return out

    @cached_property
    def people(self) -> list[lx.Name]:
        return [n for n in self.lex.names if n.kind == "person"]

    @cached_property
    def places(self) -> list[lx.Name]:
        return [n for n in self.lex.names if n.kind in ("city", "country")]  # v2.1: not German

    @cached_property
    def predicative(self) -> list[lx.Adjective]:
        """Adjectives that stand after the copula (v2.1's ordinals do not: *"It is first";
        every v2 adjective does, so v2's draws are those of the whole list)."""
        return [a for a in self.lex.adjectives if a.classes]

    @cached_property
    def rank(self) -> dict[object, float]:
        """Sampling weight of each entry: the data files list words most frequent first
        (wordfreq), and a frequent word should be seen more often: 1/sqrt(rank + 20)."""
        weights: dict[object, float] = {}
        for entries in (self.lex.nouns, self.lex.verbs, self.lex.adjectives):
            for r, entry in enumerate(entries):
                weights[entry] = (r + 20) ** -0.5
        return weights

    def pick(self, entries: Sequence):
        """One entry, frequent words more often."""
        return self.rng.choices(entries, weights=[self.rank[e] for e in entries])[0]

    def noun(self, classes: frozenset[str]) -> Noun | None:
        pool = [c for c in classes if self.nouns_by_class.get(c)]
        if not pool:
            return None
        return self.pick(self.nouns_by_class[self.rng.choice(sorted(pool))])

    def adjective_for(self, classes: frozenset[str]) -> lx.Adjective | None:
        fits = [a for a in self.lex.adjectives if a.classes & classes]
        return self.pick(fits) if fits else None

    # ------------------------------------------------------------ noun phrases
    def np(
        self,
        classes: frozenset[str],
        role: str = "object",
        pronoun_p: float | None = None,
        allow_no: bool = True,
        relative_p: float = 0.0,
        avoid: str | None = None,
        coord: bool = True,
    ) -> NP | None:
        rng = self.rng
        if coord and role in ("subject", "object") and rng.random() < 0.05:
            # "the man and the woman", "Anna and Tom"
            left = self.np(classes, role, 0.0, allow_no=False, coord=False)
            right = self.np(classes, role, 0.0, allow_no=False, coord=False)
            if left is None or right is None or left == right:
                return None
            return NP(coord=(left, right))
        if pronoun_p is None:
            pronoun_p = {"subject": 0.22, "object": 0.1, "pp": 0.05}.get(role, 0.0)
        if rng.random() < pronoun_p and ("person" in classes or role == "subject"):
            keys = [p.key for p in lx.PRONOUNS if p.key != avoid]
            if "person" not in classes:
                keys = [k for k in ("it", "they") if k != avoid]
            return NP(pronoun=rng.choice(keys))
        if "person" in classes and rng.random() < 0.1:
            return NP(name=rng.choice(self.people).en)
        if role == "pp" and "place" in classes and rng.random() < 0.12:
            return NP(name=rng.choice(self.places).en)
        noun = self.noun(classes)
        if noun is None:
            return None
        if "game" in noun.classes:  # v2.1: "plays football" (v2's nouns have no class game)
            dets = {"bare": 1.0}
        elif noun.mass:
            dets = {"the": 0.5, "bare": 0.35, "poss": 0.1, "this": 0.05}
        elif role == "pp":
            dets = {"the": 0.62, "a": 0.15, "poss": 0.12, "this": 0.04, "bare": 0.07}
        else:
            dets = {"the": 0.4, "a": 0.22, "poss": 0.1, "number": 0.07, "digits": 0.04}
            dets |= {"bare": 0.08, "this": 0.05, "many": 0.03}
            if self.lex.version != "v2":  # v2.1: "each word" = "jedes Wort" (v2 draws unchanged)
                dets |= {"each": 0.015, "every": 0.015}
        if allow_no and role != "pp":
            dets["no"] = 0.04
        det = _weighted(rng, dets)
        plural, number, possessor = False, None, None
        if det in ("the", "poss", "no", "this") and not noun.mass:
            plural = rng.random() < (0.2 if role == "pp" else 0.3)
        elif det in ("bare", "many") and not noun.mass:
            plural = True
        elif det == "many":
            return None
        elif det == "number":
            number = rng.choice(list(lx.NUMBER_WORDS))
            plural = number != "one"
        elif det == "digits":
            number = str(rng.choice([2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 25, 30, 50, 100]))
            plural = True
        if noun.en_plural == noun.en and not noun.mass and plural:
            return None  # "the sheep": English cannot tell the number German shows
        if det == "poss":
            possessor = rng.choice(lx.POSSESSIVES).key
        adjective = None
        if not noun.mass and rng.random() < 0.25:
            adj = self.adjective_for(noun.classes)
            adjective = adj.en if adj else None
        np = NP(noun.en, det, plural, adjective, number, possessor)
        if rng.random() < relative_p:
            np = replace(np, relative=self.relative(noun))
        return np

    # Object relatives: v2 draws them with accusative verbs and "who" or "that" for a person;
    # v2.1 (LessonSampler) adds the dative ("der Mann, dem ich half") and "whom".
    object_relative_frames: tuple[str, ...] = ("acc",)
    person_object_relatives: tuple[str, ...] = ("who", "that")

    def relative(self, head: Noun) -> Relative | None:
        """ "who reads the book" (the head is the subject) or "that the man reads" (object)."""
        rng = self.rng
        person = "person" in head.classes
        if rng.random() < 0.55:
            verbs = [
                v
                for v in self.lex.verbs
                if v.frame in ("acc", "intrans", "dat") and v.subject & head.classes
            ]
            if not verbs:
                return None
            v = self.pick(verbs)
            obj = self.np(v.obj, "object", pronoun_p=0.1) if v.frame != "intrans" else None
            if v.frame != "intrans" and obj is None:
                return None
            pp = None
            if v.frame == "intrans" and v.preps and rng.random() < 0.5:
                pp = self.pp(rng.choice(v.preps))  # "who lives in the house"
            clause = Clause(None, v.key, obj=obj, pp=pp, tense=self.tense(v), gap="subject")
            pronoun = rng.choice(["who", "that"] if person else ["which", "that"])
        else:
            frames = self.object_relative_frames
            frame = rng.choice(frames) if len(frames) > 1 else frames[0]  # v2: no draw
            verbs = [
                v
                for v in self.verbs_by_frame.get(frame, [])
                if v.obj & head.classes and not (frame == "dat" and v.en_particle)
            ]  # not "*whom the doors belong (to)": the grammar strands no preposition
            if not verbs:
                return None
            v = self.pick(verbs)
            subj = self.np(v.subject, "subject", pronoun_p=0.35, relative_p=0.0)
            if subj is None:
                return None
            clause = Clause(subj, v.key, tense=self.tense(v), gap="object")
            pronoun = rng.choice(
                list(self.person_object_relatives) if person else ["which", "that"]
            )
        return Relative(pronoun, clause)

    # ----------------------------------------------------------------- clauses
    def tense(self, v: Verb | None) -> str:
        while True:
            t = _weighted(self.rng, TENSES)
            if t == "progressive" and (v is None or v.key in lx.STATIVE or v.frame == "that"):
                continue
            return t

    def verb_clause(
        self,
        frames: Sequence[str] = ("acc", "intrans", "dat", "dat_acc", "prep"),
        subject: NP | None = None,
        main: bool = True,
    ) -> Clause | None:
        rng = self.rng
        frame = rng.choices(
            list(frames), weights=[{"acc": 5, "intrans": 3, "dat": 1}.get(f, 1) for f in frames]
        )[0]
        verbs = self.verbs_by_frame.get(frame)
        if not verbs:
            return None
        v = self.pick(verbs)
        if not v.subject:  # weather verbs: "It rains."
            subj = subject or NP(pronoun="it")
        else:
            subj = subject or self.np(v.subject, "subject")
        if subj is None:
            return None
        tense = self.tense(v)
        modal = None
        if rng.random() < MODAL_P:
            modal, tense = rng.choice(lx.modals(self.lex)).key, "present"
            if modal == "can" and rng.random() < 0.35:
                tense = "past"  # could
        negated = rng.random() < NEGATION_P
        obj = iobj = None
        if frame in ("acc", "dat", "dat_acc", "prep"):
            obj = self.np(
                v.obj,
                "object",
                pronoun_p=0.0 if frame == "dat_acc" else None,
                allow_no=not negated,
                avoid=subj.pronoun,
            )
            if obj is None:
                return None
            if negated and obj.det in ("number", "digits", "no", "many"):
                obj = replace(obj, det="the", number=None)
            if negated and _each(obj):  # "not every device" is no "jedes Gerät nicht"
                return None
            if negated and obj.det == "bare" and obj.plural and rng.random() < 0.4:
                obj = replace(obj, det="any")  # "didn't eat any apples"
            if v.key in lx.OBJECT_OPTIONAL and rng.random() < 0.12:
                obj = None  # "The children are eating."
        if frame == "dat_acc":
            iobj = self.np(v.iobj, "object", avoid=subj.pronoun, allow_no=False)
            if iobj is None:
                return None
        pp = None
        if v.preps and rng.random() < (0.55 if frame == "intrans" else 0.2):
            pp = self.pp(rng.choice(v.preps))
        return Clause(
            subj,
            v.key,
            obj=obj,
            iobj=iobj,
            pp=pp,
            tense=tense,
            modal=modal,
            negated=negated,
            contracted=negated and rng.random() < 0.5,
        )

    def place_pp(self) -> PP | None:
        """Where a thing is: "in the garden", "next to the door"."""
        return self.pp(self.rng.choice([p for p in PLACE_PREPS if _has_prep(self.lex, p)]))

    def pp(self, prep_key: str) -> PP | None:
        prep = self.lex.preposition(prep_key)
        np = self.np(prep.classes, "pp", allow_no=False)
        if np is None:
            return None
        if prep_key in ("between", "among"):  # "between the trees", never one tree
            if np.noun is None or np.det not in ("the", "poss") or self.lex.noun(np.noun).mass:
                return None
            np = replace(np, plural=True)
        if prep.case == "gen" and (np.name or np.pronoun):
            return None  # "wegen ihm" is colloquial; the genitive needs a noun here
        return PP(prep_key, np)

    def copula_clause(self, subject: NP | None = None) -> Clause | None:
        rng = self.rng
        kind = _weighted(rng, {"adjective": 0.6, "place": 0.25, "noun": 0.15})
        concrete = lx.CLASSES - {"abstract", "time", "event", "group", "fact", "question", "game"}
        subj = subject or self.np(frozenset(concrete), "subject")
        if subj is None:
            return None
        classes = np_classes(self.lex, subj)
        tense = rng.choice(["present", "present", "past", "past", "future", "perfect"])
        negated = rng.random() < NEGATION_P
        if kind == "adjective":
            adj = self.adjective_for(classes) if classes else rng.choice(self.predicative)
            if adj is None:
                return None
            degree = _weighted(rng, {"": 0.6, "very": 0.25, "too": 0.15}) or None
            comp = Complement(adjective=adj.en, degree=degree)
        elif kind == "place":
            pp = self.place_pp()
            if pp is None:
                return None
            comp = Complement(pp=pp)
        else:
            if "person" not in classes or _female(self.lex, subj):
                return None
            noun = self.noun(frozenset({"person"}))
            if noun is None or noun.sex == "f":
                return None
            plural = subj.plural or subj.coord is not None
            comp = Complement(np=NP(noun.en, "bare" if plural else "a", plural))
        return Clause(
            subj,
            None,
            complement=comp,
            tense=tense,
            negated=negated,
            contracted=negated and rng.random() < 0.5,
        )

    def clause(self, main: bool = True, subject: NP | None = None) -> Clause | None:
        if self.rng.random() < 0.28:
            return self.copula_clause(subject)
        return self.verb_clause(subject=subject, main=main)

    def with_adverb(self, c: Clause, allow_front: bool = True) -> Clause:
        if self.rng.random() >= 0.2:
            return c
        tense = "present" if c.modal else c.tense
        fits = [a for a in self.lex.adverbs if tense in a.tenses]
        if tense == "perfect":  # not "*Yesterday I have seen him"
            fits = [a for a in fits if "present" in a.tenses or "past" not in a.tenses]
        if c.verb is not None and self.lex.verb(c.verb).motion:  # not "*goes at home"
            fits = [a for a in fits if a.kind != "place"]
        # v2.1's "home" and "for five days": LessonSampler adds them where they fit the verb
        fits = [a for a in fits if a.kind not in ("goal", "duration")]
        if c.verb is None:
            fits = [a for a in fits if a.kind in ("time", "frequency", "sentence")]
        if not fits:
            return c
        adv = self.rng.choice(fits)
        front = {"time": 0.4, "frequency": 0.2, "sentence": 1.0}.get(adv.kind, 0.0)
        front_it = allow_front and adv.front and self.rng.random() < front
        if adv.kind == "sentence" and not front_it:
            return c
        if mid_position(adv) and c.negated:
            return c
        return replace(c, adverb=" ".join(adv.en), adverb_front=front_it)

    # --------------------------------------------------------------- sentences
    def sentence(self, kind: str) -> Sentence | None:
        rng = self.rng
        if kind == "simple":
            c = self.clause()
            return Sentence((self.with_adverb(c),)) if c else None
        if kind == "relative":
            c = self.verb_clause(frames=("acc", "intrans"))
            if c is None:
                return None
            if c.obj is not None and c.obj.noun and rng.random() < 0.5:
                rel = self.relative(self.lex.noun(c.obj.noun))
                if rel is None:
                    return None
                # the relative clause ends the sentence in both languages
                c = replace(c, obj=replace(c.obj, relative=rel), pp=None, adverb=None)
                return Sentence((c,))
            head = self.noun(self.lex.verb(c.verb).subject)  # type: ignore[arg-type]
            if head is None:
                return None
            rel = self.relative(head)
            subj = NP(head.en, rng.choice(["the", "the", "a", "this"]), rng.random() < 0.25)
            return Sentence((replace(c, subject=replace(subj, relative=rel)),)) if rel else None
        if kind == "question_yn":
            c = self.clause()
            if c is None:
                return None
            return Sentence(
                (replace(c, question=True, negated=False, contracted=False),), punct="?"
            )
        if kind == "question_wh":
            return self.wh_question()
        if kind == "imperative":
            c = self.verb_clause(frames=("acc", "intrans", "dat", "dat_acc", "prep"))
            if c is None or "person" not in self.lex.verb(c.verb).subject:  # type: ignore[arg-type]
                return None
            if c.obj is not None and c.obj.pronoun in ("i", "you"):
                return None
            if not self.lex.verb(c.verb).de_imperative:  # mögen has none
                return None
            c = replace(
                c,
                subject=None,
                tense="present",
                modal=None,
                imperative=True,
                please=not c.negated and rng.random() < 0.3,
            )
            return Sentence((c,), punct=rng.choice([".", "!"]))
        if kind == "there_is":
            return self.there_is()
        if kind == "coordination":
            first = self.clause()
            second = self.clause()
            if first is None or second is None:
                return None
            return Sentence((first, second), coordinator=rng.choice(["and", "and", "but", "or"]))
        if kind == "subordinate":
            return self.subordinate()
        if kind == "coreference":
            return self.coreference()
        raise ValueError(kind)

    def wh_question(self) -> Sentence | None:
        rng = self.rng
        word = rng.choice(["who", "who_object", "what", "where", "when", "why", "how"])
        if word == "how" and rng.random() < 0.4:  # "How old is the man?"
            c = self.copula_clause()
            if c is None or c.complement is None or c.complement.adjective is None:
                return None
            if c.tense not in ("present", "past"):
                return None
            comp = Complement(adjective=c.complement.adjective)
            return Sentence((replace(c, complement=comp, wh="how", negated=False),), punct="?")
        if word == "where" and rng.random() < 0.5:
            c = self.copula_clause()
            if c is None or c.complement is None or c.complement.pp is None:
                return None
            c = replace(c, complement=None, wh="where", negated=False)
            return Sentence((c,), punct="?")
        c = self.verb_clause(frames=("acc", "intrans", "dat", "dat_acc"))
        if c is None:
            return None
        v = self.lex.verb(c.verb)  # type: ignore[arg-type]
        c = replace(c, negated=False, contracted=False)
        if word == "who":
            if "person" not in v.subject:
                return None
            c = replace(
                c, subject=NP(wh="who"), tense=c.tense if c.tense != "progressive" else "present"
            )
        elif word == "who_object":
            if v.frame not in ("acc", "dat") or "person" not in v.obj or v.en_particle:
                return None
            c = replace(c, obj=NP(wh="who"))
        elif word == "what":
            if v.frame != "acc" or "person" in v.obj or v.en_particle:
                return None
            c = replace(c, obj=NP(wh="what"))
        else:
            if word == "where" and (v.motion or c.pp is not None):
                return None
            c = replace(c, wh=word, pp=None if word == "where" else c.pp)
        return Sentence((c,), punct="?")

    def there_is(self) -> Sentence | None:
        rng = self.rng
        concrete = frozenset({"person", "animal", "object", "furniture", "vehicle", "food"})
        np = self.np(concrete, "object", pronoun_p=0.0, allow_no=True)
        if np is None or np.name:
            return None
        np = replace(np, det=np.det if np.det != "poss" else "a", possessor=None)
        if np.det == "this":
            np = replace(np, det="a")
        if np.det == "a" and np.plural:
            np = replace(np, det="bare")
        if np.det == "the":
            np = replace(np, det="a", plural=False)
        pp = self.place_pp()
        negated = np.det == "a" and rng.random() < 0.2
        if np.det == "bare" and np.plural and rng.random() < 0.25:
            np, negated = replace(np, det="any"), True  # "There weren't any birds."
        question = not negated and np.det != "no" and rng.random() < 0.15
        c = Clause(
            None,
            None,
            there=np,
            pp=pp if rng.random() < 0.8 else None,
            tense=rng.choice(["present", "past"]),
            negated=negated,
            contracted=negated and rng.random() < 0.6,
            question=question,
        )
        return Sentence((c,), punct="?" if question else ".")

    def subordinate(self) -> Sentence | None:
        rng = self.rng
        if rng.random() < 0.25:
            verbs = self.verbs_by_frame.get("that")
            if not verbs:
                return None
            v = self.pick(verbs)
            subj = self.np(v.subject, "subject")
            sub = self.clause(main=False)
            if subj is None or sub is None:
                return None
            main = Clause(subj, v.key, tense=rng.choice(["present", "past", "perfect"]))
            return Sentence((main,), conj="that", sub=self._plain(sub))
        conj = rng.choice(["because", "because", "when", "if", "although", "before", "after"])
        main = self.clause()
        sub = self.clause(main=False)
        if main is None or sub is None:
            return None
        main_tense = "present" if main.modal else main.tense
        if main_tense in ("past", "perfect"):
            sub_tense = "past"
        elif conj in ("if", "when", "before", "after"):
            sub_tense = "present"
        else:
            sub_tense = sub.tense
        if sub_tense == "past" and sub.verb is not None and rng.random() < 0.25:
            sub_tense = "pluperfect"  # "because she had helped him"
        sub = replace(self._plain(sub), tense=sub_tense)
        if conj == "after":
            sub = replace(sub, modal=None, negated=False, contracted=False)
            if sub.tense not in ("present", "past") or sub.verb is None:
                return None
        if sub.modal and sub_tense != "present":
            sub = replace(sub, modal=None)
        return Sentence(
            (main,), conj=conj, sub=sub, sub_first=conj != "because" and rng.random() < 0.4
        )

    def _plain(self, c: Clause) -> Clause:
        return replace(c, question=False, adverb=None, adverb_front=False)

    def coreference(self) -> Sentence | None:
        """ "The animal didn't cross the street because it was too tired / too wide": the
        pronoun's German gender shows which noun it stands for, and only meaning decides."""
        rng = self.rng
        # the second noun phrase is the object, or the object of a preposition ("The horse
        # didn't jump over the fence because it was too high")
        with_pp = rng.random() < 0.3
        frame = "intrans" if with_pp else "acc"
        verbs = [v for v in self.verbs_by_frame.get(frame, []) if not v.en_particle]
        if with_pp:
            verbs = [v for v in verbs if v.preps]
        v = self.pick(verbs)
        prep = rng.choice(v.preps) if with_pp else None
        other_classes = self.lex.preposition(prep).classes if prep else v.obj
        s_noun, o_noun = self.noun(v.subject), self.noun(other_classes)
        if s_noun is None or o_noun is None or s_noun.en == o_noun.en:
            return None
        if prep and self.lex.preposition(prep).case == "gen":
            return None
        plural_s = rng.random() < 0.15
        subj = NP(s_noun.en, "the", plural_s)
        obj = NP(o_noun.en, "the" if o_noun.mass else rng.choice(["the", "the", "a"]), False)
        if np_gender(self.lex, subj) == np_gender(self.lex, obj):
            return None
        negated = rng.random() < 0.4
        tense = rng.choice(["past", "past", "present", "perfect"])
        first = Clause(
            subj,
            v.key,
            obj=None if prep else obj,
            pp=PP(prep, obj) if prep else None,
            tense=tense,
            negated=negated,
            contracted=negated and rng.random() < 0.6,
        )
        target_np = rng.choice([subj, obj])
        pronoun = "they" if target_np.plural else self._pronoun_for(target_np)
        if pronoun is None:
            return None
        # a second clause whose meaning fits exactly one of the two noun phrases
        tense2 = "past" if tense in ("past", "perfect") else "present"
        target_classes = np_classes(self.lex, target_np)
        other = obj if target_np is subj else subj
        other_classes = np_classes(self.lex, other)
        adjs = [
            a
            for a in self.lex.adjectives
            if a.classes & target_classes and not a.classes & other_classes
        ]
        if adjs and rng.random() < 0.7:
            second = Clause(
                NP(pronoun=pronoun),
                None,
                complement=Complement(
                    adjective=rng.choice(adjs).en, degree=rng.choice([None, "too", "too", "very"])
                ),
                tense=tense2,
            )
        else:
            fits = [
                w
                for w in self.verbs_by_frame.get("intrans", [])
                if w.subject & target_classes and not w.subject & other_classes
            ]
            if not fits:
                return None
            w = rng.choice(fits)
            second = Clause(NP(pronoun=pronoun), w.key, tense=tense2)
        roles = antecedents(self.lex, first, pronoun, None)
        if len(roles) < 2 and rng.random() < 0.7:
            return None  # prefer pairs where English alone cannot tell
        if rng.random() < 0.6:
            conj = rng.choice(["because", "because", "although", "when"])
            return Sentence((first,), conj=conj, sub=second)
        return Sentence((first, second), coordinator=rng.choice(["and", "but"]))

    def _pronoun_for(self, np: NP) -> str | None:
        for p in ("it", "he", "she"):
            roles = antecedents(self.lex, Clause(np, None), p, None)
            if roles:
                return p
        return None


def _each(np: NP) -> bool:
    """Whether a noun phrase, or a part of a coordinated one, says each or every (v2.1)."""
    return np.det in ("each", "every") or any(_each(part) for part in np.coord or ())


class LessonSampler(Sampler):
    """Corpus v2.1's sampler: v2's sentence kinds, some written the v2.1 way, and the
    lecturer's constructions (drawn by corpus/lesson.py)."""

    kinds = SENTENCE_KINDS_V2_1
    # v2 never drew "whom" nor a dative object relative, and the shipped translator read "The
    # woman whom the dog bit ..." as "Der Hund der Frau ..." (hand-checked relatives 68%)
    object_relative_frames = ("acc", "dat")
    person_object_relatives = ("who", "whom", "whom", "that")

    @cached_property
    def languages(self) -> list[lx.Name]:
        return [n for n in self.lex.names if n.kind == "language"]

    def np(self, classes, role="object", *args, **kwargs) -> NP | None:
        if "language" in classes and role != "subject":  # "speaks German" = "spricht Deutsch"
            return NP(name=self.rng.choice(self.languages).en)
        return super().np(classes, role, *args, **kwargs)

    def base_verb_clause(self, *args, **kwargs) -> Clause | None:
        return Sampler.verb_clause(self, *args, **kwargs)

    def verb_clause(self, *args, **kwargs) -> Clause | None:
        return lesson.with_dative_to(self, super().verb_clause(*args, **kwargs))

    def subordinate(self) -> Sentence | None:
        return lesson.with_told(self, super().subordinate())

    def sentence(self, kind: str) -> Sentence | None:
        draw = {
            "dative_to": lesson.dative_to,
            "feminine": lesson.feminine,
            "goal": lesson.goal,
            "first_lesson": lesson.first_lesson,
            "time_place": lesson.time_place,
            "question_do": lesson.question_do,
            "negation": lesson.negation,
            "possessive_s": lesson.possessive_s,
            "numbers": lesson.numbers,
            "comparison": lesson.comparison,
            "saying": lesson.saying,
            "idiomatic": lesson.idiomatic,
        }
        if kind in draw:
            return draw[kind](self)
        return lesson.with_plural_article(super().sentence(kind))


def _female(lex: Lexicon, np: NP) -> bool:
    if np.name:
        return lex.name(np.name).sex == "f"
    if np.noun:
        return lex.noun(np.noun).sex == "f"
    return np.pronoun == "she"


def _has_prep(lex: Lexicon, key: str) -> bool:
    try:
        lex.preposition(key)
    except KeyError:
        return False
    return True


def sample(sampler: Sampler, kind: str | None = None) -> Example:
    """One example: a sentence kind by weight (or the one given), drawn until it is sensible,
    unambiguous and at most MAX_SENTENCE_TOKENS English tokens long."""
    lex = sampler.lex
    # the kind is drawn once: kinds that need more tries keep their share
    k = kind or _weighted(sampler.rng, sampler.kinds)
    while True:
        spec = sampler.sentence(k)
        if spec is None:
            continue
        spec, status = assign_refs(spec, lex)
        spec = agree(spec, lex)  # v2.1's feminine forms and adjective senses; v2: unchanged
        if lex.version != "v2" and lesson.contradicts(spec, lex):
            continue
        if status != "ok":
            continue
        ex = build(spec, lex)
        if len(ex.english) > MAX_SENTENCE_TOKENS:
            continue
        # English that could also mean something else ("they read": present or past?) is
        # kept only when its first reading is this one, so that one English sentence always
        # has one German translation, the parser's
        reading = translate(ex.english_text, lex)
        if reading is None or reading.german == ex.german:
            return ex


def generate(
    n: int,
    seed: int,
    kind: str | None = None,
    lex: Lexicon | None = None,
    min_tokens: int = 0,
    version: str = "v2",
) -> list[Example]:
    """`n` examples, deterministic in `seed`; `kind` restricts them to one sentence kind and
    `min_tokens` to sentences with more English tokens than that. `version` "v2.1" draws
    corpus v2.1 (`corpus.lesson`); v2, the default, is what the shipped model was trained and
    measured on, and stays as it was."""
    lex = lex or lx.load_version(version)
    sampler = (Sampler if version == "v2" else LessonSampler)(lex, random.Random(seed))
    out: list[Example] = []
    while len(out) < n:
        ex = sample(sampler, kind)
        if len(ex.english) > min_tokens:
            out.append(ex)
    return out
