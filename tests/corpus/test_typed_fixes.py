"""Corpus v2.1's German where the sentences people type showed it wrong (issue 65, item 3): each
case is a sentence the grammar writes, with German written by hand."""

import pytest

from corpus.agreement import agree
from corpus.grammar import NP, PP, Clause, Sentence, assign_refs, build
from corpus.lexicon import load_version
from corpus.parser import translate

# (what the grammar wrote before, for the record) English -> German written by hand
FIXES = [
    # a pronoun whose only antecedent is a thing the second clause's adjective was not drawn
    # for: v2.1 wrote "es" as if it stood for nothing ("aber es ist sehr schön")
    ("The table is old, but it is very beautiful.", "Der Tisch ist alt, aber er ist sehr schön."),
    ("The door is old, but it is beautiful.", "Die Tür ist alt, aber sie ist schön."),
    # "at" a building is in it, at a party auf, at a station an (was: am Supermarkt, an der
    # Bäckerei, an der Party; prepositions_v2_1.tsv, noun_classes_v2_1.tsv)
    (
        "We bought bread and milk at the supermarket.",
        "Wir kauften Brot und Milch im Supermarkt.",
    ),
    (
        "The woman who works at the bakery is very friendly.",
        "Die Frau, die in der Bäckerei arbeitet, ist sehr freundlich.",
    ),
    (
        "The girl whom we met at the party is from Spain.",
        "Das Mädchen, das wir auf der Party trafen, ist aus Spanien.",
    ),
    ("She is at the party.", "Sie ist auf der Party."),
    ("She bought nothing at the market.", "Sie kaufte nichts auf dem Markt."),
    ("She studies at the university.", "Sie studiert an der Universität."),
    # a question is asked with stellen, with or without a dative (was: fragte eine Frage, die
    # der Student fragte; verb_senses_v2_1.tsv)
    (
        "The student asked a question because he did not understand the exercise.",
        "Der Student stellte eine Frage, weil er die Übung nicht verstand.",
    ),
    (
        "The question that the student asked was difficult.",
        "Die Frage, die der Student stellte, war schwierig.",
    ),
    ("I asked my teacher.", "Ich fragte meinen Lehrer."),
    # hard of a task is schwer (was: hart; adjectives_v2_1.tsv)
    ("The exam was hard, but it was fair.", "Die Prüfung war schwer, aber sie war fair."),
    ("Long sentences are hard for small models.", "Lange Sätze sind für kleine Modelle schwer."),
    ("The stone is hard.", "Der Stein ist hart."),
    # a film is seen (was: beobachteten den Film); birds are watched, beobachtet
    ("We watched the film, but it was too long.", "Wir sahen den Film, aber er war zu lang."),
    ("The children watch the birds.", "Die Kinder beobachten die Vögel."),
    # a thing left somewhere is gelassen (was: verließ), a place verlassen
    (
        "My jacket is wet because I left it outside.",
        "Meine Jacke ist nass, weil ich sie draußen ließ.",
    ),
    ("I left my keys at home.", "Ich ließ meine Schlüssel zu Hause."),
    ("I left the house.", "Ich verließ das Haus."),
    # a bus missed is verpasst (was: vermisste); late of a person or a train is a delay (was:
    # war spät; grammar._late)
    (
        "Anna was late because she missed the bus.",
        "Anna hatte Verspätung, weil sie den Bus verpasste.",
    ),
    (
        "The train was late because it had a problem with the doors.",
        "Der Zug hatte Verspätung, weil er ein Problem mit den Türen hatte.",
    ),
    ("The bus is not late.", "Der Bus hat keine Verspätung."),
    # a lamp works = funktioniert (was: arbeitet nicht)
    (
        "The lamp that I bought yesterday does not work.",
        "Die Lampe, die ich gestern kaufte, funktioniert nicht.",
    ),
    # a language: auf Deutsch, ins Deutsche (was: in Deutsch, nach Deutsch)
    (
        "The students wrote a short text in German.",
        "Die Studenten schrieben einen kurzen Text auf Deutsch.",
    ),
    (
        "The computer translates the sentence into German.",
        "Der Computer übersetzt den Satz ins Deutsche.",
    ),
    # go to sleep = schlafen gehen (was: zu Schlaf geht; adverbs_v2_1.tsv, parser.rest)
    (
        "She reads a book before she goes to sleep.",
        "Sie liest ein Buch, bevor sie schlafen geht.",
    ),
    # cups of coffee, no "von" (was: drei Tassen von Kaffee)
    ("I drink three cups of coffee every day.", "Ich trinke jeden Tag drei Tassen Kaffee."),
    ("He bought a bottle of water.", "Er kaufte eine Flasche Wasser."),
    # where one swims is dative (was: auf den See); where one puts a thing, accusative; the food
    # of an animal is Futter (round two, was: Essen; noun_senses_v2_1.tsv)
    (
        "The duck is swimming on the lake because it is looking for food.",
        "Die Ente schwimmt auf dem See, weil sie Futter sucht.",
    ),
    ("She put the book on the table.", "Sie legte das Buch auf den Tisch."),
    # "read" with "last year" is the past (was: lese)
    ("I read 12 books last year.", "Ich las letztes Jahr 12 Bücher."),
    ("I read a book every day.", "Ich lese jeden Tag ein Buch."),
    # nicht after a free phrase of place or time (was: mochte das Essen nicht im Restaurant)
    ("He did not like the food in the restaurant.", "Er mochte das Essen im Restaurant nicht."),
    (
        "Students must not use their phones during the exam.",
        "Studenten dürfen ihre Telefone während der Prüfung nicht benutzen.",
    ),
    ("He does not live in Berlin.", "Er wohnt nicht in Berlin."),
    ("She did not put the book on the table.", "Sie legte das Buch nicht auf den Tisch."),
    # what has lasted and goes on: present and seit (was: hat 10 Jahre hier gewohnt)
    ("She has lived here for 10 years.", "Sie wohnt seit 10 Jahren hier."),
    (
        "The coffee is cold because it has been on the table for an hour.",
        "Der Kaffee ist kalt, weil er seit einer Stunde auf dem Tisch ist.",
    ),
    ("We have lived in Berlin for a year.", "Wir wohnen seit einem Jahr in Berlin."),
    # how before where (was: gingen nach Paris zusammen); round three: fuhren (was: gingen)
    ("Tom and Anna went to Paris together.", "Tom und Anna fuhren zusammen nach Paris."),
    # ---- round two
    # an instrument is played without the article (was: spielt die Gitarre; play_instrument,
    # lexicon.BARE_OBJECT_CLASSES); my guitar, a guitar bought, a game stay
    ("Does your brother play the guitar?", "Spielt dein Bruder Gitarre?"),
    ("She plays the piano.", "Sie spielt Klavier."),
    ("He does not play the piano.", "Er spielt kein Klavier."),
    ("He plays my guitar.", "Er spielt meine Gitarre."),
    ("He bought the guitar.", "Er kaufte die Gitarre."),
    ("He plays tennis.", "Er spielt Tennis."),
    # the food of animals is Futter (was: Essen), what an animal eats it frisst (was: isst);
    # people keep Essen and essen
    ("The man gives the dog food.", "Der Mann gibt dem Hund Futter."),
    ("The birds found food.", "Die Vögel fanden Futter."),
    ("The man is looking for food.", "Der Mann sucht Essen."),
    ("The man gives the child food.", "Der Mann gibt dem Kind Essen."),
    ("The dog eats the meat.", "Der Hund frisst das Fleisch."),
    ("The man eats the meat.", "Der Mann isst das Fleisch."),
    # to a cinema, a theatre, a zoo one goes in (was: zum Kino; to_venue, noun class venue);
    # zum Bahnhof stays, and at the cinema is im Kino
    ("We are going to the cinema tonight.", "Wir gehen heute Abend ins Kino."),
    (
        "The children are excited because they are going to the zoo tomorrow.",
        "Die Kinder sind aufgeregt, weil sie morgen in den Zoo gehen.",
    ),
    ("We went to the theatre.", "Wir gingen ins Theater."),
    ("We went to the station.", "Wir gingen zum Bahnhof."),
    ("She goes to the school.", "Sie geht zur Schule."),
    ("We are at the cinema.", "Wir sind im Kino."),
    # the lesson that starts is the class, der Unterricht (was: die Lektion; lesson_class);
    # a lesson one reads stays a Lektion
    ("When does the lesson start?", "Wann fängt der Unterricht an?"),
    ("My lesson starts at nine.", "Mein Unterricht fängt um neun an."),
    ("I read the lesson.", "Ich lese die Lektion."),
    # going outside, coming here is a goal (was: draußen gehen, kam hier; lexicon.GOAL_OF_PLACE);
    # playing outside stays where
    (
        "The dog is barking because it wants to go outside.",
        "Der Hund bellt, weil er nach draußen gehen will.",
    ),
    ("She came here.", "Sie kam hierher."),
    ("The children play outside.", "Die Kinder spielen draußen."),
    # walking somewhere is zu Fuß (was: gehe normalerweise zur Arbeit, which may be by bus;
    # lexicon.ON_FOOT); going to work stays gehen
    ("I usually walk to work.", "Ich gehe normalerweise zu Fuß zur Arbeit."),
    ("She walked home.", "Sie ging zu Fuß nach Hause."),
    ("I go to work.", "Ich gehe zur Arbeit."),
    # ---- round three
    # going to a city or a country is fahren (was: gehen; go_far, lexicon.GOAL_KINDS); to
    # school, home, to the station, to the cinema, to a person one goes, gehen
    ("We go to Berlin.", "Wir fahren nach Berlin."),
    ("He goes to France.", "Er fährt nach Frankreich."),
    ("They have gone to Berlin.", "Sie sind nach Berlin gefahren."),
    ("She did not go to Germany.", "Sie fuhr nicht nach Deutschland."),
    ("Do you go to London?", "Fährst du nach London?"),
    ("She wants to go to Rome.", "Sie will nach Rom fahren."),
    ("The man who went to Paris is my father.", "Der Mann, der nach Paris fuhr, ist mein Vater."),
    ("She goes to school.", "Sie geht in die Schule."),
    ("We go home.", "Wir gehen nach Hause."),
    ("I go to the station.", "Ich gehe zum Bahnhof."),
    ("We go to the cinema.", "Wir gehen ins Kino."),
    ("They went into the city.", "Sie gingen in die Stadt."),
    ("Anna went to Tom.", "Anna ging zu Tom."),
    ("I walked to Paris.", "Ich ging zu Fuß nach Paris."),
]


@pytest.mark.parametrize(("english", "german"), FIXES)
def test_the_grammar_writes_the_hand_german(english, german):
    example = translate(english, load_version("v2.1"))
    assert example is not None and example.german_text == german


def test_a_pronoun_with_no_noun_to_stand_for_stays_es():
    """The fallback to agreement alone needs a noun that agrees: 'it' of the weather stays."""
    example = translate("The man is tired, but it is late.", load_version("v2.1"))
    assert example is not None and example.german_text == "Der Mann ist müde, aber es ist spät."


def _drawn(sentence: Sentence, version: str = "v2.1") -> str:
    """German as the generator writes a drawn spec (generator.sample: refs, agreement, build)."""
    lex = load_version(version)
    spec, _ = assign_refs(sentence, lex)
    return build(agree(spec, lex), lex).german_text


def test_the_generator_writes_the_senses_too():
    """The generator's path, not only the parser's: a drawn "watch" + film, "at" + a building."""
    watch = Clause(NP("man"), "watch", obj=NP("film"), tense="past")
    assert _drawn(Sentence((watch,))) == "Der Mann sah den Film."
    assert _drawn(Sentence((watch,)), "v2") == "Der Mann beobachtete den Film."
    work = Clause(NP("woman"), "work", pp=PP("at", NP("bakery")))
    assert _drawn(Sentence((work,))) == "Die Frau arbeitet in der Bäckerei."
    assert _drawn(Sentence((work,)), "v2") == "Die Frau arbeitet an der Bäckerei."
    table = Clause(NP("man"), "work", pp=PP("at", NP("table")))
    assert _drawn(Sentence((table,))) == "Der Mann arbeitet am Tisch."  # v2's sense stays


def test_round_two_leaves_v2_as_it_was():
    """v2's lexicon has no noun senses, venues, instruments or goals of a place adverb."""
    v2 = load_version("v2")
    for english, german in [
        ("When does the lesson start?", "Wann fängt die Lektion an?"),
        ("We are going to the cinema tonight.", "Wir gehen heute Abend zum Kino."),
        ("The dog eats the meat.", "Der Hund isst das Fleisch."),
        ("He went outside.", "Er ging draußen."),
    ]:
        example = translate(english, v2)
        assert example is not None and example.german_text == german


def test_the_generator_writes_round_two_too():
    """The generator's path: a drawn animal's food, a drawn "go" to a cinema."""
    food = Clause(NP("dog"), "look_for", obj=NP("food", det="bare"))
    assert _drawn(Sentence((food,))) == "Der Hund sucht Futter."
    assert _drawn(Sentence((food,)), "v2") == "Der Hund sucht Essen."
    cinema = Clause(NP("woman"), "go", pp=PP("to", NP("cinema")))
    assert _drawn(Sentence((cinema,))) == "Die Frau geht ins Kino."
    assert _drawn(Sentence((cinema,)), "v2") == "Die Frau geht zum Kino."


def test_going_to_a_city_is_fahren_on_the_generators_path_too():
    """A drawn "go" to a city is fahren in v2.1 (go_far); v2 keeps gehen."""
    berlin = Clause(NP("woman"), "go", pp=PP("to", NP(name="Berlin")), tense="past")
    assert _drawn(Sentence((berlin,))) == "Die Frau fuhr nach Berlin."
    assert _drawn(Sentence((berlin,)), "v2") == "Die Frau ging nach Berlin."
    example = translate("Tom and Anna went to Paris together.", load_version("v2"))
    assert example is not None and example.german_text == "Tom und Anna gingen nach Paris zusammen."
