"""Corpus v2.1: what a lecturer types in a first class, on top of corpus v2.

`generate(n, seed, version="v2.1")` draws with `generator.LessonSampler`, which extends v2's
sampler with v2.1's sentence kinds (`SENTENCE_KINDS_V2_1`), drawn by the functions here (each
takes that sampler). What v2 lacked:
- "give the book *to* the man": the dative before the object (`with_dative_to`, `dative_to`);
- die Lehrerin, eine Ärztin where "she", "her" or the subject says she is a woman (`feminine`;
  corpus/agreement.py);
- goals and places beside a time (go home = nach Hause gehen; `goal`, `time_place`);
- a first lesson's phrases and "my name is" = "ich heiße" (`first_lesson`);
- du/ihr questions of the past in the perfect ("Hast du gut geschlafen?"; `question_do`);
- nothing, nobody, not ... anything (`negation`); the possessive 's (`possessive_s`);
- ages, the hour, number words past twelve (`numbers`); comparatives and superlatives
  (`comparison`); "He says (that) ..." and "told me that" (`saying`, `with_told`);
- adjectives in their idiomatic German: schön, mir ist kalt, ich habe Hunger (`idiomatic`).
The new words live in their own data files (`*_v2_1.tsv`, `lexicon.load_version`), so corpus
v2's draws never see them and v2 stays byte for byte what the shipped model was trained and
measured on (tests/corpus/test_v2_identity.py).
"""

from __future__ import annotations

from dataclasses import replace

from corpus import agreement
from corpus import lexicon as lx
from corpus.grammar import NP, PP, Clause, Complement, Sentence, clause_slots, np_classes, with_np

# "to" after the object: how often a v2 kind's dat_acc clause is written so in v2.1.
TO_DATIVE_P = 0.5
# Verbs of motion by the goals they take (one goes to bed; one does not drive there).
GOAL_VERBS = {
    "home": frozenset("go come run return drive walk travel ride fly".split()),
    "to school": frozenset("go come run drive walk ride".split()),
    "to work": frozenset("go come run drive walk ride".split()),
    "to bed": frozenset({"go"}),
}


def with_dative_to(s, c: Clause | None) -> Clause | None:
    """A clause of v2's kinds as v2.1 writes it: the dative of a verb that gives is often "to"
    + the person, and "to" + a person is never a place phrase after such a verb."""
    if c is None or c.verb is None:
        return c
    v = s.lex.verb(c.verb)
    gives = v.frame == "dat_acc" or v.key in lx.DATIVE_TO
    if gives and c.pp is not None and c.pp.prep == "to":
        # "to" + a person after a verb that gives is its dative (the parser reads it so)
        if c.iobj is None and _dative_fits(s.lex, v, c.pp.np) and c.obj is not None:
            return replace(c, iobj=c.pp.np, pp=None, to_dative=True)
        if _dative_fits(s.lex, v, c.pp.np):
            c = replace(c, pp=None)
    if v.key in lx.DATIVE_TO and c.obj is not None and c.iobj is None:
        if s.rng.random() < 0.3:  # "explains the problem to the students"
            iobj = s.np(lx.DATIVE_TO_CLASSES, "object", allow_no=False, coord=False)
            if iobj is not None and iobj != c.subject:
                c = replace(c, iobj=iobj, to_dative=True)
    if c.iobj is not None and s.rng.random() < TO_DATIVE_P:
        c = replace(c, to_dative=True)
    return c


def dative_to(s) -> Sentence | None:
    """ "I give the book to the teacher." / "Show it to me." = "Zeig es mir." """
    rng = s.rng
    c = s.base_verb_clause(frames=("dat_acc",))
    if c is None or c.obj is None:
        return None
    c = replace(c, to_dative=True)
    if rng.random() < 0.25 and not (c.negated and c.obj.det in ("a", "bare")):
        # a pronoun object: "gives it to her" = "gibt es ihr"
        if c.obj.plural:
            c = replace(c, obj=NP(pronoun="they"))
        else:
            c = replace(c, obj=NP(pronoun="it"))
    kind = rng.random()
    person = "person" in s.lex.verb(c.verb).subject  # type: ignore[arg-type]
    if kind < 0.15 and person and c.iobj.pronoun not in ("you", "you_all"):  # type: ignore[union-attr]
        c = replace(c, subject=None, tense="present", modal=None, imperative=True)
        c = replace(c, please=not c.negated and rng.random() < 0.3)
        return Sentence((c,), punct=rng.choice([".", "!"]))
    if kind < 0.3:
        c = replace(c, question=True, negated=False, contracted=False)
        return Sentence((c,), punct="?")
    return Sentence((s.with_adverb(c),))


def _profession(s, det: str = "the") -> NP | None:
    """A person noun that has a feminine form (teacher, doctor, neighbor)."""
    nouns = [n for n in s.nouns_by_class["person"] if s.lex.feminine_of(n.en)]
    if not nouns:
        return None
    noun = s.pick(nouns)
    possessor = s.rng.choice(["i", "you", "we"]) if det == "poss" else None
    return NP(noun.en, det, possessor=possessor)


# The sex a profession sentence gives its person: as often a man as a woman, so that the German
# follows the English subject. Drawn for women alone, the first v2.1 fine-tune learned "is a
# doctor" = "ist eine Ärztin" whoever the subject ("Mein Vater ist eine Ärztin.").
SUBJECTS_OF_A_SEX = {
    "f": (NP(pronoun="she"), NP("woman"), NP("mother")),
    "m": (NP(pronoun="he"), NP("man"), NP("father")),
}


def feminine(s) -> Sentence | None:
    """ "She is a teacher." = "Sie ist eine Lehrerin." beside "He is a teacher." = "Er ist ein
    Lehrer."; "The doctor was tired because she had worked all day." = "Die Ärztin war müde,
    ..." beside "... because he ..." = "Der Arzt ..." (`grammar.feminine_agreement`)."""
    rng = s.rng
    sex = rng.choice("fm")
    branch = rng.random()
    if branch < 0.3:
        return _own(s, sex)
    if branch < 0.55:
        people = [n for n in s.people if n.sex == sex]
        subject = rng.choice([*SUBJECTS_OF_A_SEX[sex], NP(name=rng.choice(people).en)])
        job = _profession(s, "a")
        if job is None:
            return None
        c = Clause(
            subject,
            None,
            complement=Complement(np=job),
            tense=rng.choice(["present", "present", "past", "future"]),
            negated=rng.random() < 0.2,
        )
        c = replace(c, contracted=c.negated and rng.random() < 0.5)
        if rng.random() < 0.15:
            return Sentence(
                (replace(c, question=True, negated=False, contracted=False),), punct="?"
            )
        return Sentence((c,))
    subject = _profession(s, rng.choice(["the", "the", "poss"]))
    if subject is None:
        return None
    first = s.clause(subject=subject)
    second = s.clause(main=False, subject=SUBJECTS_OF_A_SEX[sex][0])
    if first is None or second is None:
        return None
    for c in (first, second):
        if c.verb is not None and "person" not in s.lex.verb(c.verb).subject:
            return None  # not "*The teacher rains"
    if rng.random() < 0.6:
        conj = rng.choice(["because", "because", "when", "although", "if"])
        tense = "past" if first.tense in ("past", "perfect") else second.tense
        second = replace(second, tense=tense, question=False, modal=None)
        return Sentence((first,), conj=conj, sub=second)
    return Sentence((first, second), coordinator=rng.choice(["and", "but"]))


def _own(s, sex: str) -> Sentence | None:
    """ "The cook bakes a cake for her son." = "Die Köchin backt einen Kuchen für ihren Sohn."
    beside "... for his son." = "Der Koch ...": one clause, whose possessive alone says who the
    person is (`agreement.her_only`). Drawn only inside two-clause sentences before, this was
    the v2.1 translator's commonest miss ("The student reads her book" = "Der Student ...")."""
    subject = _profession(s, "the")
    c = s.clause(subject=subject)
    if c is None or c.verb is None or "person" not in s.lex.verb(c.verb).subject:
        return None
    owned = [
        (slot, np)
        for slot, np in clause_slots(c)[1:]
        if np is not None and np.noun and not (np.coord or np.owner or np.relative)
    ]
    if not owned:
        return None
    slot, np = s.rng.choice(owned)
    owner = "she" if sex == "f" else "he"
    c = with_np(c, slot, replace(np, det="poss", possessor=owner, number=None, grade=None))
    # where another woman in the clause could be whom "her" means, the agreement keeps the
    # noun masculine: one reading per sentence, so such a draw is dropped
    if sex == "f" and not agreement.her_only(s.lex, c):
        return None
    return Sentence((c,))


def goal(s) -> Sentence | None:
    """ "We go home." = "Wir gehen nach Hause."; "She has gone to school." = "Sie ist in
    die Schule gegangen." """
    rng = s.rng
    goal = rng.choice(sorted(GOAL_VERBS))
    verbs = [v for v in s.lex.verbs if v.key in GOAL_VERBS[goal] and "person" in v.subject]
    if not verbs or goal not in {" ".join(a.en) for a in s.lex.adverbs}:
        return None
    v = s.pick(verbs)
    subj = s.np(frozenset({"person"}), "subject", avoid="it")
    if subj is None:
        return None
    negated = rng.random() < 0.15
    c = Clause(
        subj,
        v.key,
        tense=s.tense(v),
        negated=negated,
        contracted=negated and rng.random() < 0.5,
        place=goal,
    )
    if rng.random() < 0.15:
        return Sentence((replace(c, question=True, negated=False, contracted=False),), punct="?")
    return Sentence((s.with_adverb(c),))  # "Then she went home."


def _dative_fits(lex: lx.Lexicon, v: lx.Verb, np: NP) -> bool:
    """As the parser reads "to" + a noun phrase after a verb that gives (`_Parser._dative_fits`)."""
    if np.coord:
        return all(_dative_fits(lex, v, part) for part in np.coord)
    if np.pronoun is not None:
        return True
    return bool(np_classes(lex, np) & (v.iobj if v.frame == "dat_acc" else lx.DATIVE_TO_CLASSES))


# Phrases that can open a sentence before a comma ("Excuse me, where is the station?").
OPENERS = ("hello", "hi", "good morning", "excuse me", "sorry", "yes", "no", "thank you")


def first_lesson(s) -> Sentence | None:
    """ "Good morning!", "My name is Paul." = "Ich heiße Paul.", "What is your name?" = "Wie
    heißt du?", "Excuse me, where is the station?" """
    rng = s.rng
    draw = rng.random()
    if draw < 0.35:
        phrase = rng.choice(s.lex.phrases)
        return Sentence((), punct=rng.choice(sorted(phrase.punct)), phrase=" ".join(phrase.en))
    owner = rng.choice(lx.NAMED)
    tense = "present" if rng.random() < 0.85 else "past"
    if draw < 0.5:
        return Sentence((Clause(NP(pronoun=owner), named="what", tense=tense),), punct="?")
    sex = {"he": "m", "she": "f"}.get(owner)
    name = rng.choice([n for n in s.people if sex in (None, n.sex)]).en  # not "Her name is Mark"
    if draw < 0.55:
        c = Clause(NP(pronoun=owner), named=name, tense=tense, question=True)
        return Sentence((c,), punct="?")
    named = Clause(NP(pronoun=owner), named=name, tense=tense)
    opener = rng.choice(OPENERS[:4]) if rng.random() < 0.4 else None
    if draw < 0.7:  # "My name is Anna and I teach this class."
        second = s.clause(subject=NP(pronoun=owner))
        if second is None:
            return None
        return Sentence((named, second), coordinator="and", phrase=opener)
    if draw < 0.8:
        return Sentence((named,), phrase=opener)
    if draw < 0.86:  # "This is my friend Peter." = "Das ist mein Freund Peter."
        owner = rng.choice(lx.POSSESSIVES).key
        thing = _called(s, NP(rng.choice(INTRODUCED), "poss", possessor=owner))
        if thing is None:
            return None
        this = NP(indefinite=rng.choice(["this", "that"]))
        return Sentence((Clause(this, None, complement=Complement(np=thing), tense=tense),))
    if draw < 0.92:  # "This is my friend." = "Das ist mein Freund."
        thing = s.np(lx.CLASSES, "object", pronoun_p=0.0, allow_no=False, coord=False)
        if thing is None or thing.plural or thing.det in ("this", "number", "digits", "bare"):
            return None
        this = NP(indefinite=rng.choice(["this", "that"]))
        c = Clause(this, None, complement=Complement(np=thing), tense=tense)
        if rng.random() < 0.1:  # "Is this your book?"
            return Sentence((replace(c, question=True),), punct="?")
        return Sentence((c,))
    c = s.clause()  # "Excuse me, where is the station?" and the like
    if c is None:
        return None
    question = rng.random() < 0.4
    if question:
        c = replace(c, question=True, negated=False, contracted=False)
    return Sentence((c,), punct="?" if question else ".", phrase=rng.choice(OPENERS))


# The people one introduces by name ("This is my brother Tom."), not "my cowboy Stefan".
INTRODUCED = tuple(
    "friend brother sister mother father son daughter husband wife grandmother grandfather "
    "uncle aunt cousin colleague boss teacher student".split()
)


def _called(s, np: NP) -> NP | None:
    """A person noun with a name of a sex it can be: "my brother Tom", "my friend Anna" (the
    feminine form follows by agreement: meine Freundin Anna); None for a noun no name fits."""
    noun = s.lex.noun(np.noun)
    sexes = {noun.sex} if noun.sex else {"m", "f"} if s.lex.feminine_of(noun.en) else set()
    names = [n for n in s.people if n.sex in sexes]
    return replace(np, called=s.rng.choice(names).en) if names else None


# Place adverbs that stand beside a time adverb; not those a preposition's phrase would read
# the same ("in the garden"), nor "nowhere" (no double negation).
PLACES = frozenset(
    "here|there|outside|inside|upstairs|downstairs|nearby|next door|abroad|at home".split("|")
)


def time_place(s) -> Sentence | None:
    """A place and a time together: "The children are at home today." = "Die Kinder sind
    heute zu Hause."; "On Sunday we stay at home." (time before place in German); "The children
    are in the garden today." = "Die Kinder sind heute im Garten.", and now and then the same
    without a time: where the place after "are" was only ever an adverb with a time before it,
    two refines wrote "Die Kinder sind im Garten im Garten." (a time's slot filled twice)."""
    rng = s.rng
    places = [a for a in s.lex.adverbs if " ".join(a.en) in PLACES]
    if rng.random() < 0.4:
        subj = s.np(frozenset({"person", "animal"}), "subject")
        if subj is None:
            return None
        tense = rng.choice(["present", "present", "past", "future"])
        negated = rng.random() < 0.15
        if rng.random() < 0.5:
            pp = s.place_pp()
            if pp is None:
                return None
            c = Clause(subj, None, complement=Complement(pp=pp), tense=tense, negated=negated)
            if rng.random() < 0.3:
                return Sentence((c,))
        else:
            c = Clause(
                subj, None, tense=tense, negated=negated, place=" ".join(rng.choice(places).en)
            )
    else:
        c = s.base_verb_clause(frames=("intrans",))
        if c is None or c.verb is None or s.lex.verb(c.verb).motion:
            return None
        c = replace(c, place=" ".join(rng.choice(places).en), pp=None)
    times = [a for a in s.lex.adverbs if a.kind == "time" and c.tense in a.tenses]
    if c.tense == "perfect":  # not "*has stayed at home last month", as v2's with_adverb
        times = [a for a in times if "present" in a.tenses or "past" not in a.tenses]
    if c.modal or not times:
        return None
    time = rng.choice(times)
    return Sentence((replace(c, adverb=" ".join(time.en), adverb_front=rng.random() < 0.5),))


def knowing(s) -> Clause | None:
    """ "Anna knows the answer." = "Anna weiß die Antwort.": what one knows as a fact is
    *wissen* (know_fact, objects of class fact), a person or a city one knows *kennen* (know).
    Drawn by wordfreq rank, know_fact came twice in 6,000 sentences; question_do and negation
    draw it themselves, and know with a person or a place as often."""
    rng = s.rng
    subj = s.np(frozenset({"person"}), "subject", coord=False)
    tense = rng.choice(["present", "present", "past"])
    if rng.random() < 0.5:  # beside it, as often, what one knows with kennen: the contrast
        # (drawn alone, know_fact taught a refine "Wissen sie den berühmten Arzt?")
        known = s.np(frozenset({"person", "place", "building"}), "object", coord=False)
        if subj is None or known is None:
            return None
        return Clause(subj, "know", obj=known, tense=tense)
    fact = s.noun(frozenset({"fact"}))
    if subj is None or fact is None:
        return None
    det = rng.choice(["the", "the", "the", "poss"])  # not "*knows reasons"
    possessor = rng.choice(["i", "you", "he", "she", "we", "they"]) if det == "poss" else None
    obj = NP(fact.en, det=det, possessor=possessor)
    return Clause(subj, "know_fact", obj=obj, tense=tense)


# Frames whose clause stem_vowel builds: a verb, its subject and at most one object.
STEM_VOWEL_FRAMES = ("acc", "intrans", "dat")


def stem_vowel(s) -> Sentence | None:
    """ "Are you reading the newspaper?" = "Liest du die Zeitung?", but "Are you all reading
    ...?" = "Lest ihr ...?": the present of a strong verb changes its stem vowel for du and
    er/sie/es alone (lesen: liest, liest, lest; fahren: fährst, fährt, fahrt; waschen: wäschst).
    Corpus v2 drew a du question with such a verb about once in 40,000 sentences, and three
    refines on v2.1 in a row forgot "Liest du" for "Lest du" and took "wäschst" for "wächst"
    (grow): the forms are taught side by side here, statements and questions, ich and wir
    among them (drawn without them, a refine wrote "Ich isse einen Apfel.")."""
    rng = s.rng
    verbs = [
        v
        for v in s.lex.verbs
        if v.frame in STEM_VOWEL_FRAMES and v.de_present[2] != v.de_present[4]  # er ≠ ihr
    ]
    v = rng.choice(verbs)
    who = rng.choice(["i", "you", "you", "you_all", "you_all", "we", "np"])
    if who == "np" or "person" not in v.subject:
        subj = s.np(v.subject, "subject", coord=False)
    else:
        subj = NP(pronoun=who)
    if subj is None:
        return None
    obj = None
    if v.frame != "intrans":
        obj = s.np(v.obj, "object", avoid=subj.pronoun)
        if obj is None or obj.pronoun in ("you", "you_all"):
            return None
    progressive = v.key not in lx.STATIVE and rng.random() < 0.5  # "Are you reading ...?"
    question = rng.random() < (0.3 if who in ("i", "we") else 0.7)  # "Am I eating?" is rare
    c = Clause(subj, v.key, obj=obj, tense="progressive" if progressive else "present")
    return Sentence((replace(c, question=question),), punct="?" if question else ".")


def question_do(s) -> Sentence | None:
    """ "Does the bus stop here?" = "Hält der Bus hier?"; "Did you sleep well?" = "Hast du gut
    geschlafen?" (a du/ihr question of the past is asked in the perfect); "Do you know the
    answer?" = "Weißt du die Antwort?"; "Are you reading the newspaper?" = "Liest du die
    Zeitung?" (`stem_vowel`)."""
    if s.rng.random() < 0.3:
        return stem_vowel(s)
    c = knowing(s) if s.rng.random() < 0.12 else s.verb_clause()
    if s.rng.random() < 0.25:  # "Do you speak German?" = "Sprichst du Deutsch?"
        language = NP(name=s.rng.choice(s.languages).en)
        verb = s.rng.choice(["speak_lang", "speak_lang", "learn_lang", "understand"])
        c = Clause(NP(pronoun="he"), verb, obj=language)
    if c is None or c.modal:
        return None
    tense = s.rng.choice(["present", "present", "past"])
    c = replace(c, tense=tense, question=True, negated=False, contracted=False)
    if s.rng.random() < 0.5:  # the class is asked: du or ihr
        c = replace(c, subject=NP(pronoun=s.rng.choice(["you", "you", "you_all"])))
        if c.obj is not None and c.obj.pronoun in ("you", "you_all"):
            return None
    return Sentence((c,), punct="?")


def negation(s) -> Sentence | None:
    """ "I heard nothing." = "Ich hörte nichts."; "Nobody knows the man." = "Niemand kennt den
    Mann."; "Nobody knows the answer." = "Niemand weiß die Antwort."; "I didn't see anything." =
    "Ich sah nichts." (the "not" is in "nichts")."""
    rng = s.rng
    c = knowing(s) if rng.random() < 0.1 else s.base_verb_clause(frames=("acc",))
    if c is None or c.verb is None or c.obj is None:
        return None
    v = s.lex.verb(c.verb)
    person = "person" in v.obj
    draw = rng.random()
    if draw < 0.3 and "person" in v.subject:  # nobody / somebody as the subject
        who = rng.choice(["nobody", "nobody", "somebody", "someone"])
        c = replace(c, subject=NP(indefinite=who), negated=False, contracted=False)
    elif draw < 0.6:
        what = rng.choice(["nobody", "somebody"] if person else ["nothing", "nothing", "something"])
        c = replace(c, obj=NP(indefinite=what), negated=False, contracted=False)
    else:
        what = rng.choice(["anybody", "anyone"] if person else ["anything"])
        c = replace(c, obj=NP(indefinite=what), negated=True, contracted=rng.random() < 0.5)
    if c.modal == "must" and c.negated:
        return None  # "mustn't see anything" is darf nichts, not a lesson's first sentence
    return Sentence((s.with_adverb(c),))


def possessive_s(s) -> Sentence | None:
    """ "The doctor's car is red." = "Das Auto des Arztes ist rot."; "I know Anna's brother." =
    "Ich kenne Annas Bruder." """
    rng = s.rng
    c = s.clause()
    if c is None:
        return None
    slot = rng.choice(["subject", "obj"])
    head = getattr(c, slot)
    if head is None or head.noun is None or head.relative or s.lex.noun(head.noun).mass:
        return None
    if rng.random() < 0.4:
        owner = NP(name=rng.choice(s.people).en)
    else:
        noun = s.noun(frozenset({"person", "animal"}))
        if noun is None:
            return None
        plural = rng.random() < 0.2  # "the children's", "the students'" (= der Studenten)
        det = rng.choice(["the", "the", "poss"])
        possessor = rng.choice(lx.POSSESSIVES).key if det == "poss" else None
        owner = NP(noun.en, det, plural, possessor=possessor)
    saxon = NP(head.noun, "the", head.plural, head.adjective, owner=owner)
    return Sentence((replace(c, **{slot: saxon}),))


def numbers(s) -> Sentence | None:
    """ "The boy is ten years old." = "Der Junge ist zehn Jahre alt."; "The farmer bought
    twenty cows."; "The film starts at eight." = "Der Film fängt um acht an." """
    rng = s.rng
    words = sorted(lx.ALL_NUMBER_WORDS, key=list(lx.ALL_NUMBER_WORDS).index)
    number = rng.choice(words) if rng.random() < 0.6 else str(rng.randint(1, 99))
    draw = rng.random()
    if draw < 0.4:
        subj = s.np(frozenset({"person", "animal"}), "subject", coord=False)
        if subj is None:
            return None
        tense = rng.choice(["present", "present", "past"])
        c = Clause(subj, None, complement=Complement(age=number), tense=tense)
        c = replace(c, negated=rng.random() < 0.1)
        if rng.random() < 0.2:
            c = replace(c, question=True, negated=False)
            return Sentence((c,), punct="?")
        return Sentence((c,))
    if draw >= 0.75 and rng.random() < 0.35:
        return how_long(s)
    c = timetable(s) if draw >= 0.75 and rng.random() < 0.4 else s.base_verb_clause(frames=("acc",))
    if c is None:
        return None
    if draw < 0.75:
        obj = c.obj
        if obj is None or obj.noun is None or s.lex.noun(obj.noun).mass or number in ("one", "1"):
            return None
        noun = s.lex.noun(obj.noun)
        if noun.en_plural == noun.en:
            return None
        det = "digits" if number.isdigit() else "number"
        c = replace(c, obj=replace(obj, det=det, number=number, plural=True, possessor=None))
        return Sentence((replace(c, negated=False, contracted=False),))
    hour = rng.randint(1, 12)
    at = f"at {hour}" if rng.random() < 0.5 else f"at {words[hour - 1]}"
    c = replace(c, adverb=at, adverb_front=rng.random() < 0.3, modal=None)
    if c.tense not in ("present", "past", "future"):
        c = replace(c, tense="present")
    if c.verb in TIMETABLE_VERBS and rng.random() < 0.3:  # "Does the train leave at nine?"
        c = replace(c, question=True, adverb_front=False, negated=False, contracted=False)
        return Sentence((c,), punct="?")
    return Sentence((c,))


# What one does for a while (read and wait without their object), and for how long it is said.
DURATIVE_VERBS = {
    "wait": ("minute", "hour", "day"),
    "stay": ("hour", "day", "week", "month"),
    "sleep": ("minute", "hour"),
    "work": ("hour", "day", "week", "year"),
    "play": ("minute", "hour"),
    "swim": ("minute", "hour"),
    "dance": ("minute", "hour"),
    "sing": ("minute", "hour"),
    "read": ("minute", "hour"),
    "live": ("month", "year"),  # always with the city: "wohnte" alone is no sentence
}


def how_long(s) -> Sentence | None:
    """ "I waited for 15 minutes." = "Ich wartete 15 Minuten."; "We stayed in Paris for five
    days." = "Wir blieben fünf Tage in Paris.": how long is an accusative of time, without the
    preposition (not "auf 15 Minuten"), before the place."""
    rng = s.rng
    v = s.lex.verb(rng.choice(sorted(DURATIVE_VERBS)))
    subj = s.np(v.subject & {"person"} or v.subject, "subject", coord=False)
    # not "*They live in Berlin for ten years" (= "have lived", seit: not drawn)
    tense = rng.choice(["past", "past", "future"] + ([] if v.key == "live" else ["present"]))
    units = DURATIVE_VERBS[v.key]
    durations = [
        a
        for a in s.lex.adverbs
        if a.kind == "duration"
        and tense in a.tenses
        and (a.en[-1].removesuffix("s") in units or a.en[-1] == "time")
    ]
    if subj is None or not durations:
        return None
    c = Clause(subj, v.key, tense=tense, adverb=" ".join(rng.choice(durations).en))
    c = replace(c, adverb_front=rng.random() < 0.15)
    if v.key == "live" or (v.key in ("stay", "work") and rng.random() < 0.6):
        c = replace(c, pp=PP("in", NP(name=rng.choice(s.places).en)))
    return Sentence((c,))


# What a vehicle of a timetable does at a time (v2.1's senses for a vehicle: leave = abfahren,
# stop = halten). Drawn by wordfreq rank, they came once in some 400 sentences, too seldom for a
# refine to learn. Only what runs by a timetable and "fährt": a plane "fliegt ab".
TIMETABLE_VERBS = ("leave_vehicle", "arrive", "stop_vehicle")
TIMETABLE_VEHICLES = ("train", "bus", "tram", "ferry", "ship", "boat", "taxi")


def timetable(s) -> Clause | None:
    """ "The train leaves at nine." = "Der Zug fährt um neun ab."; "The bus stops at 8." = "Der
    Bus hält um 8." (the time is added by `numbers`)."""
    rng = s.rng
    det = rng.choice(["the", "the", "the", "a", "poss"])
    subj = NP(
        rng.choice(TIMETABLE_VEHICLES),
        det=det,
        plural=det != "a" and rng.random() < 0.2,
        possessor=rng.choice(["i", "we", "you"]) if det == "poss" else None,
    )
    tense = rng.choice(["present", "present", "past", "future"])
    return Clause(subj, rng.choice(TIMETABLE_VERBS), tense=tense)


def comparison(s) -> Sentence | None:
    """ "The horse is bigger than the dog." = "Das Pferd ist größer als der Hund."; "as old as"
    = "so alt wie"; "the biggest animal in the zoo" = "das größte Tier im Zoo"."""
    rng = s.rng
    graded = [a for a in s.lex.adjectives if a.en in {g.en for g in s.lex.grades}]
    adj = s.pick(graded)
    classes = adj.classes
    subj = s.np(classes, "subject", pronoun_p=0.1, allow_no=False, coord=False)
    if (
        subj is None
        or subj.det in ("number", "digits", "many")
        or not np_classes(s.lex, subj) & classes
    ):
        if subj is None or subj.pronoun is None:
            return None
    tense = rng.choice(["present", "present", "past"])
    draw = rng.random()
    if draw < 0.2:
        return compared_doing(s)
    if draw < 0.65:
        other = s.np(
            np_classes(s.lex, subj) & classes or classes, "object", 0.0, False, coord=False
        )
        if other is None or other == subj or other.det in ("no", "many"):
            return None
        degree = "comparative" if draw < 0.33 else "equal"
        comp = Complement(adjective=adj.en, degree=degree, than=other)
        c = Clause(subj, None, complement=comp, tense=tense)
    else:  # "Lisa is the youngest child in the family."
        if subj.pronoun and subj.pronoun not in ("i", "you", "he", "she"):
            return None
        noun = s.noun(np_classes(s.lex, subj) & classes or frozenset({"person"}))
        if noun is None or noun.mass or not noun.classes & classes:
            return None
        plural = subj.plural or subj.coord is not None
        if plural and noun.en_plural == noun.en:
            return None
        best = NP(noun.en, "the", plural, adj.en, grade="superlative")
        c = Clause(subj, None, complement=Complement(np=best), tense=tense)
        if rng.random() < 0.5:
            c = replace(c, pp=s.pp("in"))
    if rng.random() < 0.15:
        return Sentence((replace(c, question=True),), punct="?")
    return Sentence((c,))


def compared_doing(s) -> Sentence | None:
    """ "Tom runs faster than Paul." = "Tom läuft schneller als Paul."; "sings as well as" is
    left out (so gut wie would need "well", an adverb)."""
    rng = s.rng
    c = s.base_verb_clause(frames=("intrans",))
    if c is None or c.verb is None or c.modal or "person" not in s.lex.verb(c.verb).subject:
        return None
    adjective = rng.choice(sorted(lx.ADVERBIAL_GRADES - {"good", "high"}))
    other = s.np(frozenset({"person"}), "object", 0.0, False, coord=False)
    if other is None or other == c.subject:
        return None
    comp = Complement(adjective=adjective, degree="comparative", than=other)
    return Sentence((replace(c, complement=comp, pp=None, negated=False, contracted=False),))


def with_told(s, sentence: Sentence | None) -> Sentence | None:
    """A that-clause as v2.1 writes it: often without "that" ("He says the water is cold." =
    "Er sagt, dass das Wasser kalt ist."), "tell" with the person told (told me that = sagte
    mir, dass), sometimes asked ("Do you think that ...?")."""
    if sentence is None or sentence.conj != "that":
        return sentence
    rng = s.rng
    main = sentence.clauses[0]
    if main.verb == "tell_that":
        told = s.np(frozenset({"person"}), "object", allow_no=False, coord=False)
        if told is None or told == main.subject:
            return None
        main = replace(main, obj=told)
    sentence = replace(sentence, clauses=(main,), that_omitted=rng.random() < 0.4)
    if rng.random() < 0.15 and main.tense in ("present", "past"):
        return replace(sentence, clauses=(replace(main, question=True),), punct="?")
    return sentence


def saying(s) -> Sentence | None:
    """ "I think the film is boring.", "She told me that he was tired.": a verb of saying or
    thinking and its clause."""
    verbs = s.verbs_by_frame.get("that", [])
    if not verbs:
        return None
    v = s.pick(verbs)
    subj = s.np(v.subject, "subject")
    sub = s.clause(main=False)
    if subj is None or sub is None:
        return None
    main = Clause(subj, v.key, tense=s.rng.choice(["present", "past", "perfect"]))
    sub = replace(sub, question=False, adverb=None, adverb_front=False)
    return with_told(s, Sentence((main,), conj="that", sub=sub))


# v2.1's linking verbs (frame adj) and the adjectives each is said with: a soup tastes good
# (schmeckt gut), not "nice" (schön: the weather's sense).
LINKING = {
    "look_adj": tuple("tired happy sad sick young old good angry hungry strange".split()),
    "taste_adj": tuple("good bad sweet delicious fresh strange".split()),
    "smell_adj": tuple("good bad sweet fresh strange".split()),
    "sound_adj": tuple("good interesting strange boring great funny".split()),
}


def idiomatic(s) -> Sentence | None:
    """Adjectives in their idiomatic German: "The weather is nice." = "Das Wetter ist schön.",
    "I am cold." = "Mir ist kalt.", "I am hungry." = "Ich habe Hunger.", "Your sister looks
    tired." = "Deine Schwester sieht müde aus." """
    rng = s.rng
    draw = rng.random()
    tense = rng.choice(["present", "present", "past", "perfect"])
    negated = rng.random() < 0.15
    if draw < 0.25:  # "The soup tastes good." = "Die Suppe schmeckt gut."
        key = rng.choice(sorted(LINKING))
        subj = s.np(s.lex.verb(key).subject, "subject", pronoun_p=0.2, coord=False)
        if subj is None:
            return None
        adjective = rng.choice(LINKING[key])
        very = adjective not in ("great", "delicious") and rng.random() < 0.3  # not "very great"
        comp = Complement(adjective=adjective, degree="very" if very else None)
        c = Clause(subj, key, complement=comp, tense=tense, negated=negated)
    elif draw < 0.5:
        sense = s.lex.adjective("nice_thing")
        subj = s.np(sense.classes, "subject", pronoun_p=0.1, allow_no=False, coord=False)
        if subj is None or (subj.pronoun and subj.pronoun != "it"):
            return None
        comp = Complement(adjective="nice", degree=rng.choice([None, None, "very"]))
        c = Clause(subj, None, complement=comp, tense=tense, negated=negated)
    else:
        subj = s.np(frozenset({"person"}), "subject", pronoun_p=0.5, allow_no=False, coord=False)
        if subj is None or subj.pronoun == "it":
            return None
        feeling = rng.choice([*lx.DATIVE_ADJECTIVES, *lx.HAVE_NOUNS])
        degree = "very" if feeling in lx.DATIVE_ADJECTIVES and rng.random() < 0.2 else None
        comp = Complement(adjective=feeling, degree=degree)
        c = Clause(subj, None, complement=comp, tense=tense, negated=negated)
    c = replace(c, contracted=negated and rng.random() < 0.5)
    if rng.random() < 0.2:
        return Sentence((replace(c, question=True, negated=False, contracted=False),), punct="?")
    return Sentence((s.with_adverb(c),))


def contradicts(sentence: Sentence, lex: lx.Lexicon) -> bool:
    """A woman said to be a man's noun ("The lawyer is a son, but she ..." would make die
    Anwältin a son): v2.1 draws such a sentence again."""
    for c in (*sentence.clauses, sentence.sub):
        if c is None or c.subject is None or c.complement is None or c.complement.np is None:
            continue
        comp, subj = c.complement.np, c.subject
        female = subj.female or (subj.noun is not None and lex.noun(subj.noun).sex == "f")
        male = comp.noun is not None and lex.noun(comp.noun).sex == "m"
        if female and male:
            return True
    return False


def with_plural_article(sentence: Sentence | None) -> Sentence | None:
    """v2's relative kind may give a plural head "a" ("A pets which bite ..." = "Eine
    Haustiere, die ..."); v2.1 says them bare ("Pets which bite ..." = "Haustiere, die ...")."""
    if sentence is None:
        return None
    fixed = []
    for c in sentence.clauses:
        if c.subject is not None and c.subject.det == "a" and c.subject.plural:
            c = replace(c, subject=replace(c.subject, det="bare"))
        fixed.append(c)
    return replace(sentence, clauses=tuple(fixed))
