"""Tests for the synthetic English->German corpus (model/corpus.py)."""

from __future__ import annotations

from collections import Counter

import pytest

from model.corpus import (
    PHENOMENA,
    Example,
    detokenize_german,
    english_vocabulary,
    generate,
    german_vocabulary,
    tokenize_english,
    translate,
    translations,
)

# Written by hand, independently of the generator, and checked as German.
# (English as a user would type it, German in normal orthography.)
HAND_CHECKED: list[tuple[str, str]] = [
    # articles, gender and case, adjective endings
    ("The small dog sees the old man.", "Der kleine Hund sieht den alten Mann."),
    ("A woman reads a new book.", "Eine Frau liest ein neues Buch."),
    ("The child eats an apple.", "Das Kind isst einen Apfel."),
    ("I see the big dog.", "Ich sehe den großen Hund."),
    ("You buy a red car.", "Du kaufst ein rotes Auto."),
    ("He has a small cat.", "Er hat eine kleine Katze."),
    ("She writes a long letter.", "Sie schreibt einen langen Brief."),
    ("It sleeps.", "Es schläft."),
    ("We visit the old teacher.", "Wir besuchen den alten Lehrer."),
    ("You all read the newspaper.", "Ihr lest die Zeitung."),
    ("They eat the bread.", "Sie essen das Brot."),
    ("I know the man.", "Ich kenne den Mann."),
    ("You wash the dirty cups.", "Du wäschst die schmutzigen Tassen."),
    ("The father carries the tired child.", "Der Vater trägt das müde Kind."),
    # dative objects, ditransitives, weak nouns
    ("The teacher helps the student.", "Der Lehrer hilft dem Studenten."),
    ("A young man helps an old woman.", "Ein junger Mann hilft einer alten Frau."),
    ("A student thanks the teacher.", "Ein Student dankt dem Lehrer."),
    ("The boy gives the girl a flower.", "Der Junge gibt dem Mädchen eine Blume."),
    ("The mother shows the children a picture.", "Die Mutter zeigt den Kindern ein Bild."),
    (
        "The friend tells the young boy a funny story.",
        "Der Freund erzählt dem jungen Jungen eine lustige Geschichte.",
    ),
    (
        "The king sends the queen a long letter.",
        "Der König schickt der Königin einen langen Brief.",
    ),
    (
        "The woman gives the small dogs the old bread.",
        "Die Frau gibt den kleinen Hunden das alte Brot.",
    ),
    ("The farmer has seen an elephant.", "Der Bauer hat einen Elefanten gesehen."),
    # verb second after a fronted adverb
    ("Today the dog sees the man.", "Heute sieht der Hund den Mann."),
    ("Sometimes we play in the garden.", "Manchmal spielen wir im Garten."),
    ("Now the woman drinks the coffee.", "Jetzt trinkt die Frau den Kaffee."),
    ("Tomorrow I visit my grandmother.", "Morgen besuche ich meine Großmutter."),
    ("Today I have found a key.", "Heute habe ich einen Schlüssel gefunden."),
    ("Unfortunately the cat cannot swim.", "Leider kann die Katze nicht schwimmen."),
    # perfect with haben / sein
    ("The dog has seen the man.", "Der Hund hat den Mann gesehen."),
    ("The woman has gone to the school.", "Die Frau ist zur Schule gegangen."),
    ("We have eaten the cake.", "Wir haben den Kuchen gegessen."),
    ("The children have come from the park.", "Die Kinder sind vom Park gekommen."),
    ("The cat has followed the dog.", "Die Katze ist dem Hund gefolgt."),
    (
        "I have written a letter for my mother.",
        "Ich habe einen Brief für meine Mutter geschrieben.",
    ),
    ("The children have swum.", "Die Kinder sind geschwommen."),
    # modal verbs
    ("The dog can see the man.", "Der Hund kann den Mann sehen."),
    ("You must read the book.", "Du musst das Buch lesen."),
    ("The child wants to play with the dog.", "Das Kind will mit dem Hund spielen."),
    ("We want to buy a new house.", "Wir wollen ein neues Haus kaufen."),
    ("You all must not eat the cake.", "Ihr dürft den Kuchen nicht essen."),
    ("The boy cannot find the ball.", "Der Junge kann den Ball nicht finden."),
    ("I must not forget the key.", "Ich darf den Schlüssel nicht vergessen."),
    # subordinate clauses
    ("I know that the dog sees the man.", "Ich weiß, dass der Hund den Mann sieht."),
    (
        "She says that the teacher has read the book.",
        "Sie sagt, dass der Lehrer das Buch gelesen hat.",
    ),
    (
        "The dog sleeps because the man reads a book.",
        "Der Hund schläft, weil der Mann ein Buch liest.",
    ),
    (
        "The children play in the park when the teacher works.",
        "Die Kinder spielen im Park, wenn der Lehrer arbeitet.",
    ),
    ("We think that you can help the woman.", "Wir denken, dass du der Frau helfen kannst."),
    ("He hopes that his friend has come.", "Er hofft, dass sein Freund gekommen ist."),
    (
        "I believe that the children cannot sleep.",
        "Ich glaube, dass die Kinder nicht schlafen können.",
    ),
    # negation with nicht / kein
    ("The dog does not see the man.", "Der Hund sieht den Mann nicht."),
    ("The man has no dog.", "Der Mann hat keinen Hund."),
    ("The woman does not have a car.", "Die Frau hat kein Auto."),
    ("I do not like the soup.", "Ich mag die Suppe nicht."),
    ("The children do not eat apples.", "Die Kinder essen keine Äpfel."),
    ("He has not helped the old man.", "Er hat dem alten Mann nicht geholfen."),
    ("The girl does not want to go to the school.", "Das Mädchen will nicht zur Schule gehen."),
    ("The girl has no new shoes.", "Das Mädchen hat keine neuen Schuhe."),
    ("He has no small dog.", "Er hat keinen kleinen Hund."),
    # yes/no questions
    ("Does the dog see the man?", "Sieht der Hund den Mann?"),
    ("Do you like the cat?", "Magst du die Katze?"),
    ("Has the woman gone to the station?", "Ist die Frau zum Bahnhof gegangen?"),
    ("Can you help me?", "Kannst du mir helfen?"),
    ("Does the child want to drink milk?", "Will das Kind Milch trinken?"),
    ("Do you all see the birds?", "Seht ihr die Vögel?"),
    ("Do they know the famous doctor?", "Kennen sie den berühmten Arzt?"),
    # prepositions (dative: mit, zu, von, in; accusative: für, ohne)
    ("The man plays with the children.", "Der Mann spielt mit den Kindern."),
    ("The woman buys a toy for the child.", "Die Frau kauft ein Spielzeug für das Kind."),
    ("The boy goes without his dog.", "Der Junge geht ohne seinen Hund."),
    ("The teacher drives to the city.", "Der Lehrer fährt zur Stadt."),
    ("The mouse runs to the house.", "Die Maus läuft zum Haus."),
    ("The doctor works in the hospital.", "Der Arzt arbeitet im Krankenhaus."),
    ("The dog runs to the neighbor.", "Der Hund läuft zum Nachbarn."),
    ("An old bear sleeps in the forest.", "Ein alter Bär schläft im Wald."),
    # pronoun objects
    ("The dog sees him.", "Der Hund sieht ihn."),
    ("The man helps her.", "Der Mann hilft ihr."),
    ("We give them the book.", "Wir geben ihnen das Buch."),
    ("She visits us.", "Sie besucht uns."),
    ("The teacher asks you all.", "Der Lehrer fragt euch."),
    # numbers, plurals, bare plurals, possessives, mass nouns
    ("Two dogs see three cats.", "Zwei Hunde sehen drei Katzen."),
    ("Five children eat twelve cookies.", "Fünf Kinder essen zwölf Kekse."),
    ("The man has one dog.", "Der Mann hat einen Hund."),
    ("The old women read new books.", "Die alten Frauen lesen neue Bücher."),
    ("Small children like big dogs.", "Kleine Kinder mögen große Hunde."),
    ("The small girls dance with two boys.", "Die kleinen Mädchen tanzen mit zwei Jungen."),
    ("My brother has a black dog.", "Mein Bruder hat einen schwarzen Hund."),
    ("Our neighbor sells his red car.", "Unser Nachbar verkauft sein rotes Auto."),
    ("The cat drinks milk.", "Die Katze trinkt Milch."),
    # two main clauses
    ("The dog sleeps and the man reads a book.", "Der Hund schläft und der Mann liest ein Buch."),
]


def test_hand_checked_list_is_large_enough():
    assert len(HAND_CHECKED) >= 60


@pytest.mark.parametrize(("english", "german"), HAND_CHECKED)
def test_translate_hand_checked(english: str, german: str):
    ex = translate(english)
    assert ex is not None, f"grammar cannot derive {english!r}"
    assert ex.german_text == german


def test_translate_rejects_ungrammatical_english():
    assert translate("The dog see the man.") is None  # missing third-person -s
    assert translate("The dog does sees the man.") is None
    assert translate("A old man sleeps.") is None  # must be "an"
    assert translate("Dog the sees.") is None


def test_translations_lists_ambiguous_readings():
    german = {ex.german_text for ex in translations("The boy sees the sheep.")}
    assert german == {"Der Junge sieht das Schaf.", "Der Junge sieht die Schafe."}


def test_translate_accepts_tokens_and_text():
    assert translate(["the", "dog", "sleeps", "."]) == translate("The dog sleeps.")


def test_alignment_of_known_sentence():
    ex = translate("The dog has not seen the old man.")
    assert ex is not None
    assert ex.german == ("der", "Hund", "hat", "den", "alten", "Mann", "nicht", "gesehen", ".")
    en = ex.english
    pairs = {g: tuple(en[i] for i in a) for g, a in zip(ex.german, ex.alignment, strict=True)}
    assert pairs["den"] == ("the",)
    assert pairs["hat"] == ("has",)
    assert pairs["gesehen"] == ("seen",)
    assert pairs["nicht"] == ("not",)
    assert pairs["alten"] == ("old",)


def test_alignment_of_kein_and_contraction():
    ex = translate("The girl does not want to go to the school.")
    assert ex is not None
    links = {g: [ex.english[i] for i in a] for g, a in zip(ex.german, ex.alignment, strict=True)}
    assert links["zur"] == ["to", "the"]
    assert links["will"] == ["want"]
    assert links["gehen"] == ["go"]
    ex = translate("The woman does not have a car.")
    assert ex is not None
    links = {g: [ex.english[i] for i in a] for g, a in zip(ex.german, ex.alignment, strict=True)}
    assert links["kein"] == ["not", "a"]


# ---------------------------------------------------------------- generation


@pytest.fixture(scope="module")
def sample() -> list[Example]:
    return generate(5000, seed=123)


def test_determinism():
    assert generate(200, seed=7) == generate(200, seed=7)
    assert generate(200, seed=7) != generate(200, seed=8)


# German function words that need no English counterpart; everything else
# (nouns, verbs, adjectives, adverbs, numbers, pronouns) must be aligned.
def test_alignment_consistency(sample: list[Example]):
    for ex in sample:
        assert len(ex.alignment) == len(ex.german)
        for tok, links in zip(ex.german, ex.alignment, strict=True):
            assert links, f"unaligned {tok!r} in {ex.german_text}"
            assert all(0 <= i < len(ex.english) for i in links)
        assert ex.alignment[-1] == (len(ex.english) - 1,)  # punctuation to punctuation
        assert ex.german[-1] == ex.english[-1]


def test_every_english_content_word_is_translated(sample: list[Example]):
    # English tokens that German does not express: do-support and "to" of "want to".
    silent = {"does", "do", "to"}
    for ex in sample:
        covered = {i for links in ex.alignment for i in links}
        for i, tok in enumerate(ex.english):
            assert i in covered or tok in silent, f"{tok!r} untranslated in {ex.english_text}"


def test_phenomena_frequency(sample: list[Example]):
    counts = Counter(tag for ex in sample for tag in ex.phenomena)
    assert set(counts) <= PHENOMENA
    for tag in PHENOMENA:
        assert counts[tag] / len(sample) >= 0.02, (tag, counts[tag])


def test_lengths(sample: list[Example]):
    lengths = [len(ex.english) for ex in sample]
    assert min(lengths) >= 3 and max(lengths) <= 20
    assert 6 <= sum(lengths) / len(lengths) <= 11


def test_sampled_sentences_round_trip_through_translate(sample: list[Example]):
    for ex in sample[:300]:
        assert ex in translations(ex.english)


def test_vocabularies_cover_sample(sample: list[Example]):
    en_vocab, de_vocab = set(english_vocabulary()), set(german_vocabulary())
    assert english_vocabulary() == sorted(en_vocab)
    assert german_vocabulary() == sorted(de_vocab)
    for ex in sample:
        assert set(ex.english) <= en_vocab
        assert set(ex.german) <= de_vocab


def test_coordinated_sentences():
    for ex in generate(200, seed=3, max_clauses=2):
        assert "and" in ex.english and "und" in ex.german
        assert "coordination" in ex.phenomena
        assert len(ex.alignment) == len(ex.german)


def test_german_casing(sample: list[Example]):
    for ex in sample:
        for tok in ex.german:
            if tok[0].isupper():  # only nouns are capitalised in tokens
                assert tok not in {"der", "die", "das", "ich", "Ich"}


# ------------------------------------------------------------ text helpers


def test_tokenize_english():
    assert tokenize_english("The small dog sees the old man.") == [
        "the", "small", "dog", "sees", "the", "old", "man", ".",
    ]  # fmt: skip
    assert tokenize_english("  Does  the dog\tsee him?") == [
        "does",
        "the",
        "dog",
        "see",
        "him",
        "?",
    ]
    assert tokenize_english("Today, I sleep!") == ["today", ",", "i", "sleep", "!"]
    assert tokenize_english("The dog doesn't see the man.") == [
        "the", "dog", "does", "not", "see", "the", "man", ".",
    ]  # fmt: skip
    assert tokenize_english("I can't swim.") == ["i", "cannot", "swim", "."]


def test_detokenize_german():
    assert detokenize_german(["der", "kleine", "Hund", "sieht", "den", "alten", "Mann", "."]) == (
        "Der kleine Hund sieht den alten Mann."
    )
    assert detokenize_german(["ich", "weiß", "dass", "er", "schläft", "."]) == (
        "Ich weiß, dass er schläft."
    )
    assert detokenize_german(["sieht", "er", "ihn", "?"]) == "Sieht er ihn?"
    assert detokenize_german(["wenn", "er", "schläft", ",", "lacht", "sie", "."]) == (
        "Wenn er schläft, lacht sie."
    )


def test_example_text_properties():
    ex = translate("The small dog sees the old man.")
    assert ex is not None
    assert ex.english_text == "the small dog sees the old man."
    assert ex.german_text == "Der kleine Hund sieht den alten Mann."
