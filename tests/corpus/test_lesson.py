"""Corpus v2.1 (corpus/lesson.py): each new construction against German written by hand here,
and the consistency of what `generate(n, seed, version="v2.1")` writes."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from corpus import lesson
from corpus import lexicon as lx
from corpus.generator import LessonSampler, build, generate
from corpus.hand_checked import pairs
from corpus.parser import tokenize, translate

PUNCT = {".", ",", "?", "!"}


def _german(english: str, lex=None) -> str | None:
    ex = translate(english, lex)
    return ex.german_text if ex else None


@pytest.fixture(scope="module")
def sample() -> list:
    """A fixed sample of corpus v2.1, every sentence kind by its weight."""
    return generate(2000, seed=21, version="v2.1")


@pytest.fixture(scope="module")
def large_sample() -> list:
    """A larger sample, for the kinds a lesson draws a few times in a thousand."""
    return generate(6000, seed=5, version="v2.1")


# ----------------------------------------------------------- dative with "to"

DATIVE_TO = {
    "I give the book to the teacher.": "Ich gebe dem Lehrer das Buch.",
    "She shows the picture to her mother.": "Sie zeigt ihrer Mutter das Bild.",
    "Give it to me.": "Gib es mir.",
    "We sent a letter to the doctor.": "Wir schickten dem Arzt einen Brief.",
    "Did you give the key to him?": "Hast du ihm den Schlüssel gegeben?",
    "I do not give the money to the man.": "Ich gebe dem Mann das Geld nicht.",
    "What did you give to the child?": "Was hast du dem Kind gegeben?",
    "She gave them to the children.": "Sie gab sie den Kindern.",
    "The man explains the problem to the students.": "Der Mann erklärt den Studenten das Problem.",
    "Anna wrote a letter to her father.": "Anna schrieb ihrem Vater einen Brief.",
}


@pytest.mark.parametrize("english", DATIVE_TO)
def test_dative_with_to(english):
    assert _german(english) == DATIVE_TO[english]


def test_to_a_place_is_no_dative():
    """ "to Berlin" is where the letter goes, not who gets it: never "schickt Berlin"."""
    assert (_german("I send the letter to Berlin.") or "").find("Berlin den") == -1
    assert _german("I give the book to the teacher.", lx.load()) is None  # v2 has no "to"


def test_to_aligns_with_the_dative_article():
    ex = translate("I give the book to the teacher.")
    assert ex is not None
    to = ex.english.index("to")
    assert ex.alignment[ex.german.index("dem")] == (to, to + 1)


# ------------------------------------------------------ feminine professions

FEMININE = {
    "She is a teacher.": "Sie ist eine Lehrerin.",
    "Anna is a doctor.": "Anna ist eine Ärztin.",
    "She is not a student.": "Sie ist keine Studentin.",
    "He is a teacher.": "Er ist ein Lehrer.",
    "The teacher is tired because she is sick.": "Die Lehrerin ist müde, weil sie krank ist.",
    "My doctor is nice, but she is very tired.": "Meine Ärztin ist nett, aber sie ist sehr müde.",
    "The teacher is tired because he is sick.": "Der Lehrer ist müde, weil er krank ist.",
    "The doctor helped the man and he thanked her.": (
        "Die Ärztin half dem Mann und er dankte ihr."
    ),
    "The cook bakes a cake for her son.": "Die Köchin backt einen Kuchen für ihren Sohn.",
    "The teacher sees the neighbor.": "Der Lehrer sieht den Nachbarn.",
}


@pytest.mark.parametrize("english", FEMININE)
def test_feminine_professions(english):
    assert _german(english) == FEMININE[english]


def test_v2_keeps_its_masculine_reading():
    assert _german("She is a teacher.", lx.load()) == "Sie ist ein Lehrer."


def test_she_links_to_the_feminine_noun():
    ex = translate("The teacher is tired because she is sick.")
    assert ex is not None
    (link,) = ex.coreference
    assert [ex.english[i] for i in link.antecedent] == ["The", "teacher"]
    assert ex.german[link.german_pronoun] == "sie"


# ---------------------------------------------------- time and place adverbs

TIME_PLACE = {
    "We go home.": "Wir gehen nach Hause.",
    "She has gone to school.": "Sie ist in die Schule gegangen.",
    "I am not going to bed.": "Ich gehe nicht ins Bett.",
    "Then the woman went home.": "Dann ging die Frau nach Hause.",
    "My brother will come home next month.": "Mein Bruder wird nächsten Monat nach Hause kommen.",
    "Last summer I was in Berlin.": "Letzten Sommer war ich in Berlin.",
    "This week we are working.": "Diese Woche arbeiten wir.",
    "Is your mother at home?": "Ist deine Mutter zu Hause?",
    "The children are at home today.": "Die Kinder sind heute zu Hause.",
    "Yesterday evening we ate at home.": "Gestern Abend aßen wir zu Hause.",
    "On Monday the man stays at home.": "Am Montag bleibt der Mann zu Hause.",
    "I work here.": "Ich arbeite hier.",
    "The old man lives next door.": "Der alte Mann wohnt nebenan.",
}


@pytest.mark.parametrize("english", TIME_PLACE)
def test_time_and_place(english):
    assert _german(english) == TIME_PLACE[english]


def test_home_is_a_goal_only_after_a_verb_of_motion():
    assert _german("The man reads home.") is None


def test_a_particle_starts_the_object_not_a_phrase():
    """ "waits at home for the children" is warten auf, never "wartet für die Kinder"."""
    assert "für" not in (_german("The dog waits at home for the children.") or "")


# ---------------------------------------------------------- the whole sample


def test_v2_1_samples_parse_back_to_themselves(sample):
    """The reference translator reads every v2.1 sentence as the generator wrote it (v2's
    own kinds leave a few "there is" coordinations unread, as in v2)."""
    misses = [
        ex.english_text
        for ex in sample
        if (r := translate(ex.english_text)) is None
        or (r.german, r.alignment, r.coreference) != (ex.german, ex.alignment, ex.coreference)
    ]
    assert len(misses) <= len(sample) // 100, misses[:20]


def test_alignment_in_range_and_every_word_aligned(sample):
    """Every German word but punctuation comes from English words; every English word is
    said in German except do-support, "to" of "want to", the progressive's auxiliary and
    a preposition German says by case."""
    silent = {"do", "does", "did", "to", "am", "is", "are", "all"}
    silent |= {" ".join(p.en) for p in lx.load().prepositions if len(p.en) == 1}
    for ex in sample:
        assert len(ex.alignment) == len(ex.german)
        for tok, links in zip(ex.german, ex.alignment):
            assert all(0 <= i < len(ex.english) for i in links), ex
            # "dass" of "He says the water is cold" has no English word to come from
            unsaid = tok == "dass" and "that" not in ex.english
            assert links or tok in PUNCT or unsaid, (tok, ex.german_text)
        aligned = {i for links in ex.alignment for i in links}
        for i, word in enumerate(ex.english):
            assert i in aligned or word.lower() in silent, (word, ex.english_text)


def test_every_new_construction_is_generated(sample):
    tags = Counter(t for ex in sample for t in ex.phenomena)
    tags_wanted = ("dative_to", "feminine_profession", "goal", "place_and_time", "set_phrase")
    tags_wanted += ("possessive_s", "possessive_s_name", "age", "comparison_comparative")
    tags_wanted += ("comparison_equal", "adjective_superlative", "idiom_dative", "idiom_haben")
    tags_wanted += ("demonstrative_pronoun", "comparison_adverbial", "language")
    for tag in (*tags_wanted, "name_is", "negation_indefinite"):
        assert tags[tag] >= 8, (tag, tags[tag])
    assert tags["perfect_shift"] >= 10  # "Hast du gut geschlafen?"


def test_the_dative_to_is_aligned_in_the_sample(sample):
    """ "to" is never left out in v2.1: the dative's first German word says it."""
    for ex in sample:
        if "dative_to" in ex.phenomena:
            to = [i for i, w in enumerate(ex.english) if w == "to"]
            assert any(i in links for links in ex.alignment for i in to), ex.english_text


def test_feminine_nouns_come_with_a_woman(sample):
    """A feminine profession noun only where the sentence says she is a woman: "she", "her",
    a woman's name or noun (independent of the code: read from the English words)."""
    female_words = {"she", "her", "woman", "mother"}
    female_words |= {n.en.lower() for n in lx.load().names if n.sex == "f"}
    # the nouns the lexicon's sex column calls female ("A wife was the happiest secretary.")
    female_words |= {w for n in lx.load().nouns if n.sex == "f" for w in (n.en, n.en_plural)}
    feminine = {n.de for n in lx.load_version("v2.1").feminine}
    feminine -= {n.de for n in lx.load().nouns}  # Freundin is also v2's "girlfriend"
    for ex in sample:
        if feminine & set(ex.german):
            assert female_words & {w.lower() for w in ex.english}, ex.english_text


def test_a_profession_after_is_comes_with_a_man_as_often_as_with_a_woman():
    """ "He is a doctor." as well as "She is a doctor.": drawn for women alone, a model learned
    "is a doctor" = "ist eine Ärztin" whoever the subject. Read from the words: the German
    article before the predicate noun and the English subject's sex."""
    male_words = {"he", "man", "father"} | {n.en.lower() for n in lx.load().names if n.sex == "m"}
    female_words = {"she", "woman", "mother"}
    female_words |= {n.en.lower() for n in lx.load().names if n.sex == "f"}
    feminine = {n.de for n in lx.load_version("v2.1").feminine}
    masculine = {n.de for n in lx.load().nouns if n.gender == "m" and n.en in
                 {f.en for f in lx.load_version("v2.1").feminine}}  # fmt: skip
    said = {"f": 0, "m": 0}
    # 6,000 draws hold about 80 such sentences; 3,000 held too few to compare (m 19, f 25 once
    # the lexicon gained three verbs, a draw of the same sizes' noise)
    for ex in generate(6000, seed=22, version="v2.1"):
        words = [w.lower() for w in ex.english]
        if len(words) < 4 or words[1] not in ("is", "was", "will", "isn't", "wasn't"):
            continue
        german = set(ex.german)
        if words[0] in female_words and feminine & german:
            said["f"] += 1
        if words[0] in male_words and masculine & german:
            said["m"] += 1
    assert min(said.values()) >= 0.6 * max(said.values()) and said["m"] >= 20, said


def test_a_possessive_alone_says_who_the_person_is_for_both_sexes(large_sample):
    """ "The student reads her book." = "Die Studentin liest ihr Buch." beside "... his book." =
    "Der Student ...": one-clause sentences whose only clue is the possessive, drawn for both
    sexes (the v2.1 translator wrote "Der Student liest ihr Buch." when the corpus drew these
    only inside two-clause sentences). Read from the words: the English subject noun, the one
    possessive, and the German subject's form."""
    professions = {f.en: f.de for f in lx.load_version("v2.1").feminine}
    seen = {"her": 0, "his": 0}
    for ex in large_sample:
        words = [w.lower() for w in ex.english]
        clauses = {",", "and", "but", "that", "because", "when", "if", "although", "who", "which"}
        if words[0] != "the" or words[1] not in professions or clauses & set(words):
            continue
        owners = [w for w in words if w in ("her", "his", "she", "he", "him")]
        if owners not in (["her"], ["his"]):
            continue
        seen[owners[0]] += 1
        assert (ex.german[1] == professions[words[1]]) == (owners[0] == "her"), ex.english_text
    assert min(seen.values()) >= 30, seen


def test_a_or_an_goes_by_the_sound():
    """ "a user", "a university", "an hour", "an honest man" (v2 went by the letter: "an
    user"). Read from the English words of a sample, against the sounds written here."""
    you_sound = ("uni", "use", "usu", "eu")
    silent_h = ("hour", "honest")
    wrong, right = [], 0
    for ex in generate(6000, seed=24, version="v2.1"):
        words = [w.lower() for w in ex.english]
        for det, word in zip(words, words[1:]):
            if det not in ("a", "an") or not word.startswith(you_sound + silent_h):
                continue
            if (det == "an") == word.startswith(silent_h):
                right += 1
            else:
                wrong.append(ex.english_text)
    assert not wrong, wrong[:5]
    assert right >= 5, right  # the sample has such words at all


def test_either_article_is_read():
    """What a user types with the other article still has its reference translation."""
    assert _german("I see a user.") == _german("I see an user.") == "Ich sehe einen Benutzer."
    hour = "Ein Frosch reagiert nach einer Stunde."
    assert _german("A frog reacts after an hour.") == _german("A frog reacts after a hour.") == hour
    ex = translate("She visited an university.")
    assert ex is not None and ex.english_text == "She visited a university."


# ------------------------------------------------------------ questions with do

QUESTION_DO = {
    "Does the man sleep?": "Schläft der Mann?",
    "Do you drink coffee?": "Trinkst du Kaffee?",
    "Did the teacher open the window?": "Öffnete der Lehrer das Fenster?",
    "Did you sleep well?": "Hast du gut geschlafen?",
    "Did you all see the film?": "Habt ihr den Film gesehen?",
    "What did you eat?": "Was hast du gegessen?",
    "Did you come home?": "Bist du nach Hause gekommen?",
    "Did he sleep well?": "Schlief er gut?",
}


@pytest.mark.parametrize("english", QUESTION_DO)
def test_questions_with_do(english):
    assert _german(english) == QUESTION_DO[english]


def test_v2_asks_du_in_the_prateritum_still():
    assert _german("Did you sleep well?", lx.load()) == "Schliefst du gut?"


def test_did_aligns_with_the_auxiliary():
    ex = translate("Did you sleep well?")
    assert ex is not None and ex.german[0] == "Hast"
    assert ex.alignment[0] == (0, 2)


# ------------------------------------------------------ no, never, nothing, nobody

NEGATION = {
    "I heard nothing.": "Ich hörte nichts.",
    "I have seen nothing.": "Ich habe nichts gesehen.",
    "Nobody knows the man.": "Niemand kennt den Mann.",
    "I didn't see anything.": "Ich sah nichts.",
    "I don't know anybody.": "Ich kenne niemanden.",
    "Somebody helped me.": "Jemand half mir.",
    "We have no time.": "Wir haben keine Zeit.",
    "The cat never sleeps in the kitchen.": "Die Katze schläft nie in der Küche.",
    # "have to" is müssen, so its negation is "muss nicht", never v2's "must not" = "darf nicht"
    "You don't have to wait.": "Du musst nicht warten.",
    "The children do not have to sleep.": "Die Kinder müssen nicht schlafen.",
    "You must not wait.": "Du darfst nicht warten.",
    "She has to work today.": "Sie muss heute arbeiten.",
    "Does he have to go?": "Muss er gehen?",
    "He says that she has to work.": "Er sagt, dass sie arbeiten muss.",
}


@pytest.mark.parametrize("english", NEGATION)
def test_negation(english):
    assert _german(english) == NEGATION[english]


def test_not_anything_aligns_with_nichts():
    """ "didn't ... anything" is one German word: nichts says both."""
    ex = translate("I didn't see anything.")
    assert ex is not None
    assert ex.alignment[ex.german.index("nichts")] == (1, 3)


# ------------------------------------------------------------- the possessive 's

POSSESSIVE_S = {
    "The doctor's car is red.": "Das Auto des Arztes ist rot.",
    "I know Paul's mother.": "Ich kenne Pauls Mutter.",
    "Thomas's new car is blue.": "Thomas' neues Auto ist blau.",
    "My father's house is very old.": "Das Haus meines Vaters ist sehr alt.",
    "We found the boy's ball.": "Wir fanden den Ball des Jungen.",
    "The children's teacher is tired.": "Der Lehrer der Kinder ist müde.",
    "I give the book to the woman's son.": "Ich gebe dem Sohn der Frau das Buch.",
}


@pytest.mark.parametrize("english", POSSESSIVE_S)
def test_possessive_s(english):
    assert _german(english) == POSSESSIVE_S[english]


def test_the_owner_s_s_says_the_head_s_article():
    """ "the doctor's car": das (definite because of 's) and des Arztes both come from
    "doctor's"; the English "the" is the owner's (des)."""
    ex = translate("The doctor's car is red.")
    assert ex is not None
    assert ex.german[:4] == ("Das", "Auto", "des", "Arztes")
    assert ex.alignment[:4] == ((1,), (2,), (0,), (1,))


# ------------------------------------------------------------------- numbers

NUMBERS = {
    "The boy is ten years old.": "Der Junge ist zehn Jahre alt.",
    "I am 20 years old.": "Ich bin 20 Jahre alt.",
    "The baby is one year old.": "Das Baby ist ein Jahr alt.",
    "Are you twelve years old?": "Bist du zwölf Jahre alt?",
    "The farmer bought twenty cows.": "Der Bauer kaufte zwanzig Kühe.",
    "We have thirty books.": "Wir haben dreißig Bücher.",
    "The film starts at eight.": "Der Film fängt um acht an.",
    "At 7 we eat.": "Um 7 essen wir.",
}


@pytest.mark.parametrize("english", NUMBERS)
def test_numbers(english):
    assert _german(english) == NUMBERS[english]


def test_v2_knows_no_twenty():
    assert _german("The farmer bought twenty cows.", lx.load()) is None


# -------------------------------------------------- comparatives and superlatives

COMPARISON = {
    "The horse is bigger than the dog.": "Das Pferd ist größer als der Hund.",
    "My brother is older than my sister.": "Mein Bruder ist älter als meine Schwester.",
    "The book was more interesting than the film.": "Das Buch war interessanter als der Film.",
    "Tom is as old as Anna.": "Tom ist so alt wie Anna.",
    "The elephant is the biggest animal in the zoo.": "Der Elefant ist das größte Tier im Zoo.",
    "She is the best student.": "Sie ist die beste Studentin.",
    "I have a bigger house.": "Ich habe ein größeres Haus.",
    "We saw the highest mountain.": "Wir sahen den höchsten Berg.",
    "Tom runs faster than Paul.": "Tom läuft schneller als Paul.",
    "Anna sings better than her sister.": "Anna singt besser als ihre Schwester.",
}


@pytest.mark.parametrize("english", COMPARISON)
def test_comparison(english):
    assert _german(english) == COMPARISON[english]


def test_more_interesting_is_one_german_word():
    ex = translate("The book was more interesting than the film.")
    assert ex is not None
    assert ex.alignment[ex.german.index("interessanter")] == (3, 4)


# --------------------------------------------- verbs of saying and thinking, their clause

SAYING = {
    "He says the water is cold.": "Er sagt, dass das Wasser kalt ist.",
    "I think that the film is boring.": "Ich denke, dass der Film langweilig ist.",
    "I know the answer is wrong.": "Ich weiß, dass die Antwort falsch ist.",
    "Tom believes his sister is in London.": "Tom glaubt, dass seine Schwester in London ist.",
    "He told me that his brother lives in Rome.": "Er sagte mir, dass sein Bruder in Rom wohnt.",
    "Do you think that the dog is dangerous?": "Denkst du, dass der Hund gefährlich ist?",
    "Does she believe the man is tired?": "Glaubt sie, dass der Mann müde ist?",
}


@pytest.mark.parametrize("english", SAYING)
def test_saying_and_thinking(english):
    assert _german(english) == SAYING[english]


def test_dass_without_that_translates_no_english_word():
    ex = translate("He says the water is cold.")
    assert ex is not None
    assert ex.alignment[ex.german.index("dass")] == ()


# ------------------------------------------------ adjectives in their idiomatic German

IDIOMATIC = {
    "The weather is nice today.": "Das Wetter ist heute schön.",
    "We had a nice day.": "Wir hatten einen schönen Tag.",
    "The man is nice.": "Der Mann ist nett.",
    "I am cold.": "Mir ist kalt.",
    "Are you cold now?": "Ist dir jetzt kalt?",
    "The children were not cold.": "Den Kindern war nicht kalt.",
    "Because I am cold, I go home.": "Weil mir kalt ist, gehe ich nach Hause.",
    "The soup is cold.": "Die Suppe ist kalt.",
    "My brother is hungry.": "Mein Bruder hat Hunger.",
    "I am not hungry.": "Ich habe keinen Hunger.",
    "Are the children thirsty?": "Haben die Kinder Durst?",
    "I am sorry.": "Es tut mir leid.",
    "Your father is right.": "Dein Vater hat recht.",
    "You are not right.": "Du hast nicht recht.",
    "The answer is right.": "Die Antwort ist richtig.",
    # linking verbs: German says how a thing looks, tastes, smells or sounds with a verb of its
    # own (aussehen is separable), the adjective closing the clause
    "You look tired.": "Du siehst müde aus.",
    "The children have looked very happy.": "Die Kinder haben sehr glücklich ausgesehen.",
    "The cake didn't taste good.": "Der Kuchen schmeckte nicht gut.",
    "Does the soup taste good?": "Schmeckt die Suppe gut?",
    "The bread smelled fresh.": "Das Brot roch frisch.",
    "He says that the story sounds interesting.": "Er sagt, dass die Geschichte interessant klingt.",
    "The man looks at the dog.": "Der Mann sieht den Hund an.",
}


@pytest.mark.parametrize("english", IDIOMATIC)
def test_idiomatic_adjectives(english):
    assert _german(english) == IDIOMATIC[english]


ORDINALS = {
    "Please read the first sentence.": "Bitte lies den ersten Satz.",
    "The first sentence has 8 words.": "Der erste Satz hat 8 Wörter.",
    "The second layer is bigger than the first layer.": (
        "Die zweite Schicht ist größer als die erste Schicht."
    ),
    "We saw the last film.": "Wir sahen den letzten Film.",
}


@pytest.mark.parametrize("english", ORDINALS)
def test_ordinals(english):
    assert _german(english) == ORDINALS[english]


def test_an_ordinal_is_never_predicative():
    assert _german("The sentence is first.") is None


LATE_PREDICATE = {
    "The children are happy in the garden.": "Die Kinder sind im Garten glücklich.",
    "The children are not happy in the garden.": "Die Kinder sind im Garten nicht glücklich.",
    "It is cold outside.": "Es ist draußen kalt.",
    "I am hungry in the kitchen.": "Ich habe in der Küche Hunger.",
}


@pytest.mark.parametrize("english", LATE_PREDICATE)
def test_the_predicate_closes_the_middle_field(english):
    assert _german(english) == LATE_PREDICATE[english]


def test_v2_keeps_its_predicate_before_the_place():
    assert _german("The children are happy in the garden.", lx.load()) == (
        "Die Kinder sind glücklich im Garten."
    )


def test_v2_says_nice_weather_its_own_way():
    """v2 is left as it was: its "nett" for the weather stays (v2.1 says schön)."""
    assert _german("The weather is nice.", lx.load()) == "Das Wetter ist nett."


# ------------------------------------------------------ a first lesson's phrases

FIRST_LESSON = {
    "My name is Paul.": "Ich heiße Paul.",
    "Her name was Maria.": "Sie hieß Maria.",
    "What is your name?": "Wie heißt du?",
    "Is his name Tom?": "Heißt er Tom?",
    "I think that her name is Anna.": "Ich denke, dass sie Anna heißt.",
    "Hello, my name is Tom.": "Hallo, ich heiße Tom.",
    "Good morning!": "Guten Morgen!",
    "Thank you very much.": "Vielen Dank.",
    "How are you?": "Wie geht es dir?",
    "Where are you from?": "Woher kommst du?",
    "Goodbye.": "Auf Wiedersehen.",
    "See you tomorrow!": "Bis morgen!",
    "Excuse me, where is the station?": "Entschuldigung, wo ist der Bahnhof?",
    "Yes, the dog is tired.": "Ja, der Hund ist müde.",
    "This is my friend.": "Das ist mein Freund.",
    "This is my friend Peter.": "Das ist mein Freund Peter.",
    "That was our teacher Maria.": "Das war unsere Lehrerin Maria.",
    "Is this your brother Tom?": "Ist das dein Bruder Tom?",
    "That is a good idea.": "Das ist eine gute Idee.",
    "Is this your book?": "Ist das dein Buch?",
    "This was very nice.": "Das war sehr schön.",
    "Do you speak German?": "Sprichst du Deutsch?",
    "We learn English.": "Wir lernen Englisch.",
    "Does she understand French?": "Versteht sie Französisch?",
}


@pytest.mark.parametrize("english", FIRST_LESSON)
def test_first_lesson(english):
    assert _german(english) == FIRST_LESSON[english]


def test_a_person_introduced_by_name_is_of_the_name_s_sex(sample):
    """ "This is my friend Anna." = "Das ist meine Freundin Anna.": the German noun before the
    name is a woman's where the name is (names.tsv's sexes, the lexicon's feminine forms and
    women's nouns), else a man's."""
    lex = lx.load_version("v2.1")
    sex = {n.de: n.sex for n in lex.names if n.kind == "person"}
    women = {n.de for n in lex.feminine} | {n.de for n in lex.nouns if n.sex == "f"}
    introduced = [ex for ex in sample if ex.german[1] in ("ist", "war") and len(ex.german) == 6]
    introduced = [ex for ex in introduced if ex.german[0] == "Das" and ex.german[-2] in sex]
    assert len(introduced) >= 8
    for ex in introduced:
        assert (ex.german[-3] in women) == (sex[ex.german[-2]] == "f"), ex.german_text


def test_name_is_aligned_word_by_word():
    """ "My name is Paul" = "Ich heiße Paul": ich says "my", heiße says "name is"."""
    ex = translate("My name is Paul.")
    assert ex is not None
    assert ex.alignment == ((0,), (1, 2), (3,), (4,))


def test_thank_you_all_is_no_order():
    """ "Thank you all ..." is no imperative whose object is "you" (v2 read "Dank euch")."""
    assert not (_german("Thank you all for the cake.") or "").startswith("Dank euch")


# v2.1's constructions of this kind, German written by hand: (english, german), by construction.
HAND_GERMAN = {
    # a copula's place is a phrase, the time before it (lesson.time_place)
    "place_after_the_copula": [
        ("The children are in the garden today.", "Die Kinder sind heute im Garten."),
        ("The dog was under the table yesterday.", "Der Hund war gestern unter dem Tisch."),
        ("The children are in the garden.", "Die Kinder sind im Garten."),
    ],
    # stem_vowel: the present of a strong verb changes its vowel for du and er/sie/es alone
    "stem_vowel": [
        ("Are you reading the newspaper?", "Liest du die Zeitung?"),
        ("Do you all read the newspaper?", "Lest ihr die Zeitung?"),
        ("Is she washing the car?", "Wäscht sie das Auto?"),
        ("You eat an apple.", "Du isst einen Apfel."),
        ("I eat an apple.", "Ich esse einen Apfel."),
        ("Do you all drive?", "Fahrt ihr?"),
        ("Does the child sleep?", "Schläft das Kind?"),
    ],
    # know_fact (objects of class fact, noun_classes_v2_1.tsv) beside know = kennen
    "know_fact": [
        ("Do you know the answer?", "Weißt du die Antwort?"),
        ("Nobody knew the truth.", "Niemand wusste die Wahrheit."),
        ("My sister knows the reason.", "Meine Schwester weiß den Grund."),
        ("I know your brother.", "Ich kenne deinen Bruder."),
        ("Does he know Berlin?", "Kennt er Berlin?"),
    ],
    # ask_question (objects of class question) beside ask = fragen
    "ask_question": [
        ("She asked him a question.", "Sie stellte ihm eine Frage."),
        ("Did you ask the man a question?", "Hast du dem Mann eine Frage gestellt?"),
        ("I ask the teacher.", "Ich frage den Lehrer."),
    ],
    # a pronoun before a noun subject after the verb; a pronoun subject, the subject first and
    # a subordinate clause keep their order
    "pronoun_first": [
        ("Yesterday the man gave me the book.", "Gestern gab mir der Mann das Buch."),
        ("Does the man see you?", "Sieht dich der Mann?"),
        ("The man gave me the book.", "Der Mann gab mir das Buch."),
        ("Yesterday I gave him the book.", "Gestern gab ich ihm das Buch."),
        ("I know that Paul likes her.", "Ich weiß, dass Paul sie mag."),
    ],
    # a plural owner ending in s takes the apostrophe alone
    "plural_owner": [
        ("I know the teachers' names.", "Ich kenne die Namen der Lehrer."),
        ("The dogs' house is small.", "Das Haus der Hunde ist klein."),
        ("The boss's car is new.", "Das Auto des Chefs ist neu."),
    ],
    # after school = nach der Schule, beside where one goes
    "after_school": [
        ("The boy went home after school.", "Der Junge ging nach der Schule nach Hause."),
        ("She reads the newspaper after work.", "Sie liest nach der Arbeit die Zeitung."),
    ],
    # play_game (objects of class game), without an article
    "game": [
        ("Do you play tennis?", "Spielst du Tennis?"),
        ("We played chess yesterday.", "Wir spielten gestern Schach."),
        ("The children play.", "Die Kinder spielen."),
    ],
    # each and every, declined as dieser, singular only
    "each": [
        ("The model gives each word a number.", "Das Modell gibt jedem Wort eine Zahl."),
        ("Every child reads a book.", "Jedes Kind liest ein Buch."),
        ("I thank every teacher.", "Ich danke jedem Lehrer."),
        ("Each girl has a dog.", "Jedes Mädchen hat einen Hund."),
        ("I work every day.", "Ich arbeite jeden Tag."),
    ],
}


@pytest.mark.parametrize(
    "english, german",
    [pair for pairs_ in HAND_GERMAN.values() for pair in pairs_],
    ids=[f"{kind}-{i}" for kind, pairs_ in HAND_GERMAN.items() for i in range(len(pairs_))],
)
def test_v2_1_writes_the_hand_german(english, german):
    assert _german(english) == german


def test_a_plural_owner_ending_in_s_is_one_token():
    """ "the students' books": one token for the possessive, none for a quote."""
    assert tokenize("The students' books.") == ["The", "students'", "books", "."]
    assert tokenize("'Hello', she said.")[:2] == ["Hello", ","]


def test_each_takes_a_singular_noun():
    assert _german("Each girls have a dog.") is None


def test_how_long_is_an_accusative_of_time():
    """ "for 15 minutes" is no "auf 15 Minuten" (wait for = warten auf); German by hand."""
    assert _german("I waited for 15 minutes.") == "Ich wartete 15 Minuten."
    assert _german("I waited for the bus for an hour.") == "Ich wartete eine Stunde auf den Bus."
    assert _german("We stayed in Paris for five days.") == "Wir blieben fünf Tage in Paris."
    assert _german("She slept for a long time.") == "Sie schlief lange."
    assert _german("For two weeks we stayed at home.") == "Zwei Wochen blieben wir zu Hause."
    assert _german("I waited for the train.") == "Ich wartete auf den Zug."


def test_durations_are_drawn_with_the_verbs_they_fit(large_sample):
    """A duration comes with a verb one does for a while, in units that fit it (nobody lives
    somewhere for 20 minutes), and never from v2.1's general adverb slot."""
    found = [e for e in large_sample if "adverb_duration" in e.phenomena]
    assert len(found) >= 15, len(found)
    for e in found:
        text = e.english_text
        assert not re.search(r"\b(live|lives|lived)\b.*\b(minutes?|hours?|days?)\b", text), text
        assert not re.search(r"\b(sleep|sleeps|slept)\b.*\b(weeks?|months?|years?)\b", text), text


def test_know_fact_is_drawn_often_enough_to_learn(large_sample):
    """Drawn by wordfreq rank alone it came twice in 6,000 v2.1 sentences."""
    known = r"\bkn(ow|ows|ew|own) (the|my|your|his|her|our|their) (answer|truth|reason|price|solution|address|result)"
    wissen = {"weiß", "weißt", "wissen", "wisst", "wusste", "wusstest", "wussten", "gewusst"}
    facts = [
        e for e in large_sample if re.search(known, " ".join(e.english)) and wissen & set(e.german)
    ]
    # by wordfreq rank alone it came twice; 3 to 10 in draws of 6,000 (seeds 5-8) since the
    # lesson draws kennen beside it and question_do the stem vowel
    assert len(facts) >= 3, facts
    s = LessonSampler(lx.load_version("v2.1"), random.Random(11))
    verbs = Counter(c.verb for c in (lesson.knowing(s) for _ in range(400)) if c is not None)
    assert set(verbs) == {"know", "know_fact"} and min(verbs.values()) > 120, verbs


def test_a_copulas_place_is_drawn_with_a_time_and_alone():
    """ "The children are in the garden today." and "... in the garden.": where time_place gave
    the copula only adverbs of place, always with a time, two refines wrote "Die Kinder sind im
    Garten im Garten.". Read from the English words of 600 draws of the lesson: "are" followed
    by a preposition of place, with a time (tagged adverb_time) and without."""
    lex = lx.load_version("v2.1")
    s = LessonSampler(lex, random.Random(7))
    copula = {"is", "are", "was", "were", "be"}
    places = {"in", "on", "under", "behind", "near", "next", "in front of"}
    seen = Counter()
    for _ in range(600):
        sentence = lesson.time_place(s)
        if sentence is None:
            continue
        ex = build(sentence, lex)
        words = [w.lower() for w in ex.english]
        if any(a in copula and b in places for a, b in zip(words, words[1:])):
            seen["adverb_time" in ex.phenomena] += 1
    # 91 and 30 when written; 20 and 0 before ("next door", "near" with a time only)
    assert seen[True] >= 45 and seen[False] >= 15, seen


# English verbs whose German object is dative, written by hand (helfen, folgen, danken, ...).
DATIVE_VERBS = {
    "help", "helps", "helped", "follow", "follows", "followed", "thank", "thanks", "thanked",
    "trust", "trusts", "trusted", "answer", "answers", "answered", "harm", "harms", "harmed",
    "forgive", "forgives", "forgave", "forgiven", "obey", "obeys", "obeyed", "resemble",
    "resembles", "resembled", "congratulate", "congratulates", "congratulated", "contradict",
    "contradicts", "contradicted", "encounter", "encounters", "encountered", "join", "joins",
    "joined", "helping", "following", "thanking", "trusting", "answering", "harming",
    "forgiving", "obeying", "congratulating", "contradicting", "encountering", "joining",
}  # fmt: skip


def test_object_relatives_take_whom_and_the_dative(large_sample):
    """ "The woman whom the dog bit ..." = "Die Frau, die der Hund biss, ...", "The man whom I
    helped" = "Der Mann, dem ich half": v2 drew neither "whom" nor a dative object relative, and
    the shipped translator read "whom" as a genitive ("Der Hund der Frau biss ..."). Read from
    the words: after "whom", a clause whose verb is one of DATIVE_VERBS has German dem, der or
    denen after its comma, any other den, die or das."""
    seen = Counter()
    for ex in large_sample:
        english = [w.lower() for w in ex.english]
        if "whom" not in english or english.count("whom") > 1 or "," in english:
            continue
        rest = set(english[english.index("whom") + 1 :][:6])
        german = [w.lower() for w in ex.german]
        relative = german[german.index(",") + 1]
        dative = bool(rest & DATIVE_VERBS)
        assert relative in ({"dem", "der", "denen"} if dative else {"den", "die", "das"}), (
            ex.english_text,
            ex.german_text,
        )
        seen[dative] += 1
    # 0 and 0 before v2.1 drew them; 10 and 10 when written
    assert seen[False] >= 6 and seen[True] >= 4, seen


# ich, du and ihr of strong verbs, written by hand; er/sie/es takes the du form's vowel.
STEM_VOWEL_FORMS = [
    ("lese", "liest", "lest"), ("sehe", "siehst", "seht"), ("fahre", "fährst", "fahrt"),
    ("esse", "isst", "esst"), ("nehme", "nimmst", "nehmt"), ("gebe", "gibst", "gebt"),
    ("spreche", "sprichst", "sprecht"), ("trage", "trägst", "tragt"),
    ("wasche", "wäschst", "wascht"), ("schlafe", "schläfst", "schlaft"),
    ("helfe", "hilfst", "helft"), ("treffe", "triffst", "trefft"), ("laufe", "läufst", "lauft"),
    ("vergesse", "vergisst", "vergesst"), ("falle", "fällst", "fallt"),
    ("halte", "hältst", "haltet"), ("werfe", "wirfst", "werft"), ("stehle", "stiehlst", "stehlt"),
    ("empfehle", "empfiehlst", "empfehlt"), ("messe", "misst", "messt"), ("lade", "lädst", "ladet"),
    ("brate", "brätst", "bratet"), ("grabe", "gräbst", "grabt"), ("trete", "trittst", "tretet"),
    ("rate", "rätst", "ratet"), ("sterbe", "stirbst", "sterbt"), ("fange", "fängst", "fangt"),
    ("schlage", "schlägst", "schlagt"), ("wachse", "wächst", "wachst"),
    ("verlasse", "verlässt", "verlasst"), ("behalte", "behältst", "behaltet"),
    ("erhalte", "erhältst", "erhaltet"), ("betrete", "betrittst", "betretet"),
    ("bespreche", "besprichst", "besprecht"), ("zerbreche", "zerbrichst", "zerbrecht"),
    ("unterbreche", "unterbrichst", "unterbrecht"), ("begrabe", "begräbst", "begrabt"),
]  # fmt: skip


def test_the_stem_vowel_is_taught_for_ich_du_and_ihr_side_by_side(large_sample):
    """ "Liest du?" beside "Lest ihr?" and "Ich lese": every refine on v2.1 before these were
    drawn wrote "Lest du die Zeitung?", and one that saw du alone "Ich isse einen Apfel.". Read
    from the words: a form beside ich, du or ihr (in either order) is that pronoun's, and each
    is drawn often enough to learn. "ihr" counts only where the English says "you all" (not her
    or their: "Liest ihr Bruder ...")."""
    person = {"ich": 0, "du": 1, "ihr": 2}
    forms = {form: i for row in STEM_VOWEL_FORMS for i, form in enumerate(row)}
    seen = dict.fromkeys(person, 0)
    for ex in large_sample:
        english = [w.lower() for w in ex.english]
        ihr_is_you = "all" in english and not {"her", "their"} & set(english)
        words = [w.lower() for w in ex.german]
        for a, b in zip(words, words[1:]):
            pronoun, verb = (a, b) if a in person else (b, a)
            if pronoun not in person or verb not in forms or (pronoun == "ihr" and not ihr_is_you):
                continue
            assert forms[verb] == person[pronoun], ex.german_text
            seen[pronoun] += 1
    # ich 2, du 18, ihr 11 where stem_vowel draws nothing; 11, 41 and 30 when it was written
    assert seen["ich"] >= 7 and seen["du"] >= 30 and seen["ihr"] >= 20, seen


# ------------------------------------------------- the hand-checked v2.1 pairs, per tag

# Exact matches of translate(english) with the hand-written German, per construction, as
# measured when v2.1's grammar was written: a floor. Most misses are English v2.1 cannot read
# yet (two adverbs of time, words not in the lexicon);
# some are a second right German the hand did not choose (in die/zur Schule, ... schön sein wird / schön wird), and a few are v2's own word choices (Ehefrau for
# "wife", am Markt, Lektion for "lesson"), which v2.1 keeps so that v2 stays as it was.
HAND_CHECKED_FLOOR = {
    "feminine_profession": 20,
    "dative_to": 16,
    "saying_clause": 16,
    "first_lesson": 22,
    "time_place": 15,
    "idiomatic_adjective": 15,
    "question_do": 16,
    "negation": 16,
    "comparison": 17,
    "possessive_s": 16,
    "numbers": 19,
    "lecturer": 18,
}


def test_hand_checked_v2_1_pairs_per_construction():
    """The grammar's German against pairs written apart from it (data/hand_checked_v2_1.tsv)."""
    hand = pairs("v2.1")
    assert {p.construction for p in hand} == set(HAND_CHECKED_FLOOR)
    exact: Counter[str] = Counter()
    misses = []
    for p in hand:
        got = _german(p.english)
        if got == p.german:
            exact[p.construction] += 1
        else:
            misses.append(f"[{p.construction}] {p.english} -> {got!r}, hand: {p.german!r}")
    below = {t: (exact[t], floor) for t, floor in HAND_CHECKED_FLOOR.items() if exact[t] < floor}
    assert not below, f"{below}\n" + "\n".join(misses)


def test_no_woman_is_called_a_man_s_noun(sample):
    """ "The lawyer is a son, but she ..." would make die Anwältin a son: read from the
    English and German words, independent of the code that draws again."""
    male = {n.en for n in lx.load().nouns if n.sex == "m"}
    feminine = {n.de for n in lx.load_version("v2.1").feminine}
    for ex in sample:
        words = [w.lower() for w in ex.english]
        called = {words[k + 2] for k in range(len(words) - 2) if words[k] in ("is", "was")}
        called |= {words[k + 1] for k in range(len(words) - 1) if words[k] in ("is", "was")}
        if feminine & set(ex.german):
            assert not (called & male), ex.english_text


def test_v2_1_is_the_same_in_every_process():
    """A training run regenerates the corpus in worker processes, whose string hashes differ:
    v2.1 must not depend on the order of a set."""
    code = (
        "from corpus.generator import generate; import hashlib; "
        "texts = [e.english_text + e.german_text for e in generate(300, 4, version='v2.1')]; "
        "print(hashlib.sha256(''.join(texts).encode()).hexdigest())"
    )
    root = Path(__file__).resolve().parents[2]
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1


def test_no_present_perfect_with_a_finished_time(sample):
    """English says "stayed at home last week", never "has stayed at home last week"."""
    finished = ("yesterday", "last", "ago")
    for ex in sample:
        words = [w.lower() for w in ex.english]
        perfect = any(a in words for a in ("has", "have", "hasn't", "haven't")) and any(
            w.endswith(("ed", "en")) for w in words
        )
        if perfect and "had" not in words and not {"that", "because", "when"} & set(words):
            assert not any(w.startswith(finished) for w in words), ex.english_text


def test_a_never_stands_before_a_plural(sample):
    """ "A pets which bite ..." (v2's relative kind writes it, "Eine Haustiere") is said
    bare in v2.1; read from the English words."""
    lex = lx.load()
    plurals = {n.en_plural for n in lex.nouns if n.en_plural != n.en}
    adjectives = {a.en for a in lex.adjectives}
    for ex in sample:
        words = [w.lower() for w in ex.english]
        for k, w in enumerate(words[:-1]):
            if w in ("a", "an"):
                nxt = words[k + 2] if words[k + 1] in adjectives and k + 2 < len(words) else ""
                assert words[k + 1] not in plurals and nxt not in plurals, ex.english_text


def test_a_woman_s_her_is_never_a_plural_s():
    assert _german("Six reporters did not offer food to her employee.") == (
        "Sechs Reporter boten ihrem Mitarbeiter kein Essen an."
    )


def test_a_verb_is_read_in_the_sense_its_subject_takes():
    """One English verb, two German ones, told apart by what the subject is (the generator's
    selectional restrictions): a vehicle stops by halten and leaves by abfahren; a person who
    stops gives up (aufhören), and stops a bus with anhalten."""
    assert _german("Does the bus stop here?") == "Hält der Bus hier?"
    assert _german("The train stopped in the village.") == "Der Zug hielt im Dorf."
    assert _german("The man stops.") == "Der Mann hört auf."
    assert _german("The driver stopped the bus.") == "Der Fahrer hielt den Bus an."
    assert _german("The train leaves at nine.") == "Der Zug fährt um neun ab."
    assert _german("The bus has left.") == "Der Bus ist abgefahren."
    assert _german("The man leaves the house.") == "Der Mann verlässt das Haus."
    # two English words before the object, one German preposition: achten auf
    assert _german("The model pays attention to the last word.") == (
        "Das Modell achtet auf das letzte Wort."
    )
    assert _german("Pay attention to the teacher!") == "Achte auf den Lehrer!"
    assert _german("The children listen to the music.") == "Die Kinder hören der Musik zu."


def test_a_timetable_says_when_a_vehicle_leaves_or_stops(large_sample):
    """ "The train leaves at nine." = "Der Zug fährt um neun ab.", "The bus stops at 8." = "Der
    Bus hält um 8.": v2.1 draws them often enough to be learned (drawn by frequency rank, the
    v2.1 verbs came once in some 400 sentences). Read from the words: a vehicle noun, a form of
    leave or stop with "at" and a time, and the German verb that says it."""
    vehicles = set()
    for n in lx.load().nouns:
        if "vehicle" in n.classes:
            vehicles |= {n.en, n.en_plural}
    german = {
        "leave": {"fährt", "fahren", "fuhr", "fuhren", "abfahren"},
        "stop": {"hält", "halten", "hielt", "hielten"},
    }
    forms = {"leave": {"leave", "leaves", "left"}, "stop": {"stop", "stops", "stopped"}}
    seen = 0
    hours = {str(h) for h in range(1, 13)} | set(lx.ALL_NUMBER_WORDS)
    for ex in large_sample:
        words = [w.lower() for w in ex.english]
        if "at" not in words or not vehicles & set(words[:4]) or len(words) > 8:
            continue
        for verb, said in forms.items():
            if said & set(words) and words[words.index("at") + 1] in hours:
                seen += 1
                said_de = {w.lower() for w in ex.german}
                assert german[verb] & said_de and "um" in said_de, ex.english_text
    # 10 in this draw (8 to 18 in draws of 6,000 as the other lessons changed); 0 or 1 without it
    assert seen >= 6, seen
