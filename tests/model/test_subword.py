"""The shared English–German BPE vocabulary (model/subword.py), on small hand-written corpora."""

from __future__ import annotations

import json

import pytest

from corpus.grammar import Coreference, Example, join_tokens
from model.subword import (
    PieceLink,
    SubwordTokenizer,
    join_words,
    piece_alignment,
    piece_links,
    piece_words,
    train_tokenizer,
    word_spans,
)
from model.tokenization import BOS_ID, EOS_ID, PAD_ID, UNK_ID

PAIRS = [
    ("The dog sleeps.", "Der Hund schläft."),
    ("The cat sleeps.", "Die Katze schläft."),
    ("The dog sees the cat.", "Der Hund sieht die Katze."),
    ("The cat sees the dog.", "Die Katze sieht den Hund."),
    ("The dog is tired.", "Der Hund ist müde."),
    (
        "The cat is tired, because it sleeps too little.",
        "Die Katze ist müde, weil sie zu wenig schläft.",
    ),
    (
        "The dog sees the cat, because it is not tired.",
        "Der Hund sieht die Katze, weil er nicht müde ist.",
    ),
    ("Where is the dog?", "Wo ist der Hund?"),
    ("Where is the cat?", "Wo ist die Katze?"),
    ("The dog is in the house.", "Der Hund ist im Haus."),
    ("The cat is in the kitchen.", "Die Katze ist in der Küche."),
    (
        "The animal didn't cross the street because it was too tired.",
        "Das Tier überquerte die Straße nicht, weil es zu müde war.",
    ),
    ("Don't cross the street!", "Überquere die Straße nicht!"),
    ("I can't see the dog.", "Ich kann den Hund nicht sehen."),
    ("She doesn't like the cat.", "Sie mag die Katze nicht."),
    ("The boy eats 3 apples.", "Der Junge isst 3 Äpfel."),
    ("The girl drinks 2 glasses of milk.", "Das Mädchen trinkt 2 Gläser Milch."),
    ("Peter lives in Munich.", "Peter wohnt in München."),
    ("Anna lives in Cologne with the dog.", "Anna wohnt mit dem Hund in Köln."),
    ("The old man reads a big book.", "Der alte Mann liest ein großes Buch."),
    ("Is the oil in the kitchen?", "Ist das Öl in der Küche?"),
    ("It is 10 degrees today.", "Heute sind es 10 Grad."),
    ("The house has 45 rooms.", "Das Haus hat 45 Zimmer."),
    ("The book costs 19 euros.", "Das Buch kostet 19 Euro."),
    ("Bus 286 is late, isn't it?", "Der Bus 286 ist spät, nicht wahr?"),
    ("The train leaves at 7.", "Der Zug fährt um 7 ab."),
    (
        "The dog doesn't sleep, because the cat sees it.",
        "Der Hund schläft nicht, weil die Katze ihn sieht.",
    ),
    ("Does the dog see the cat?", "Sieht der Hund die Katze?"),
    ("The street is wide and the dog is tired.", "Die Straße ist breit und der Hund ist müde."),
    ("The dog and the cat sleep in the house.", "Der Hund und die Katze schlafen im Haus."),
]
TEXTS = [text for pair in PAIRS for text in pair]
VOCAB_SIZE = 200

FREQUENT = (
    "The the dog cat Der der die Hund Katze is ist sees sieht because weil it sie tired müde "
    "schläft"
).split()
NAME = "Siegfried"  # in no sentence above, but every letter of it is


@pytest.fixture(scope="module")
def tok() -> SubwordTokenizer:
    return SubwordTokenizer(train_tokenizer(TEXTS, VOCAB_SIZE))


def test_specials_have_the_projects_ids(tok):
    assert tok.itos[:4] == ["<pad>", "<unk>", "<s>", "</s>"]
    assert (PAD_ID, UNK_ID, BOS_ID, EOS_ID) == (0, 1, 2, 3)
    assert len(tok) == VOCAB_SIZE == len(tok.itos)
    added = json.loads(tok.to_json())["added_tokens"]
    assert [(t["id"], t["content"]) for t in added] == [
        (0, "<pad>"),
        (1, "<unk>"),
        (2, "<s>"),
        (3, "</s>"),
    ]


def test_no_normaliser_keeps_case(tok):
    assert train_tokenizer(TEXTS, VOCAB_SIZE).normalizer is None
    assert tok.encode("Hund", 10).tokens == ("Hund",)
    assert tok.encode("hund", 10).tokens != ("Hund",)


@pytest.mark.parametrize(
    "text",
    [
        "The animal didn't cross the street because it was too tired.",
        "Das Tier überquerte die Straße nicht, weil es zu müde war.",
        "Überquere die Straße nicht, Jürgen!",
        "Wo ist das Öl? Heute sind es 10 Grad.",
        "Isn't it 45 degrees in Munich, Anna?",
        "Die 3 Äpfel kosten 286 Euro, nicht wahr?",
        "I can't see the big dog!",
        "Der große Mädchenbus fährt um 7.",
        "Bus 1234567890 is late.",
        "Peter 's dog sleeps.",  # a word that starts with an apostrophe is not glued on
    ],
)
def test_round_trip(tok, text):
    tokenized = tok.encode(text, 100)
    assert tokenized.unknown == ()
    assert UNK_ID not in tokenized.ids
    assert tok.decode(tokenized.ids) == text
    assert tok.tokens(tokenized.ids) == list(tokenized.tokens)


def test_raw_tokenizer_decodes_with_punctuation_attached():
    raw = train_tokenizer(TEXTS, VOCAB_SIZE)
    assert raw.decode(raw.encode("Der Hund schläft.").ids) == "Der Hund schläft."
    assert raw.encode("Der Hund schläft.").tokens == ["Der", "Hund", "schläft", "."]
    # Only `. , ? !` attach to the left, as in join_tokens; pieces starting with an
    # apostrophe do not (the WordPiece decoder's cleanup would glue "'s" and "n't").
    pieces = ["Peter", "'s", "Mün", "##chen", "do", "n't", ",", "?", "!", "."]
    assert raw.decoder.decode(pieces) == "Peter 's München do n't,?!."


def test_punctuation_split_off_and_apostrophes_kept(tok):
    assert tok.encode("Der Hund ist müde, weil die Katze schläft!", 20).tokens == (
        "Der",
        "Hund",
        "ist",
        "müde",
        ",",
        "weil",
        "die",
        "Katze",
        "schläft",
        "!",
    )
    pieces = tok.encode("didn't", 10).tokens
    assert all(p.startswith("##") for p in pieces[1:])  # one word, however many pieces
    assert tok.decode(tok.encode("didn't", 10).ids) == "didn't"


@pytest.mark.parametrize("word", FREQUENT)
def test_frequent_words_are_one_piece(tok, word):
    assert tok.encode(word, 10).tokens == (word,)


def test_unseen_name_splits_into_pieces(tok):
    assert NAME not in " ".join(TEXTS)
    pieces = tok.encode(NAME, 10).tokens
    assert len(pieces) >= 2
    assert not pieces[0].startswith("##")
    assert all(p.startswith("##") for p in pieces[1:])
    assert "".join(p.removeprefix("##") for p in pieces) == NAME
    assert tok.decode(tok.encode(f"{NAME} sieht den Hund.", 20).ids) == f"{NAME} sieht den Hund."


def test_every_character_is_a_piece_inside_words_too(tok):
    # Capitals only start words in the corpus; "##D", "##K", "##Z" ... still exist.
    tokenized = tok.encode("McDonald KATZE", 30)
    assert tokenized.unknown == ()
    assert tok.decode(tokenized.ids) == "McDonald KATZE"


def test_unknown_character(tok):
    tokenized = tok.encode("Der Hund € schläft, Hund€.", 20)
    assert tokenized.tokens[:5] == ("Der", "Hund", "<unk>", "schläft", ",")
    assert tokenized.ids[2] == UNK_ID
    assert tokenized.tokens[5:] == ("Hund", "<unk>", ".")
    assert tokenized.unknown == ("€", "Hund€")
    assert tok.decode(tokenized.ids) == "Der Hund schläft, Hund."


def test_truncation(tok):
    tokenized = tok.encode("Der Hund sieht die Katze.", 3)
    assert tokenized.tokens == ("Der", "Hund", "sieht")
    assert tokenized.truncated_from == 6
    assert tok.encode("Der Hund sieht die Katze.", 6).truncated_from is None
    assert tok.encode("Der € sieht die Katze€.", 2).unknown == ("€",)


def test_decode_stops_at_end_and_skips_specials(tok):
    ids = list(tok.encode("Der Hund schläft.", 10).ids)
    other = list(tok.encode("Die Katze", 10).ids)
    assert tok.decode([BOS_ID, *ids, EOS_ID, *other]) == "Der Hund schläft."
    assert tok.decode([BOS_ID, ids[0], PAD_ID, UNK_ID, *ids[1:], PAD_ID]) == "Der Hund schläft."


def test_training_is_deterministic():
    # The `tokenizers` trainer alone numbers "##" pieces in hash-map order (tokenizers#1794),
    # which differs between trainings even in one process.
    first = train_tokenizer(TEXTS, VOCAB_SIZE)
    for _ in range(3):
        again = train_tokenizer(iter(TEXTS), VOCAB_SIZE)
        assert again.get_vocab() == first.get_vocab()
        assert again.to_str() == first.to_str()


def test_json_round_trip(tok):
    copy = SubwordTokenizer.from_json(tok.to_json())
    assert copy.itos == tok.itos
    assert copy.to_json() == tok.to_json()
    for text in TEXTS[:6] + [f"{NAME} €"]:
        assert copy.encode(text, 50) == tok.encode(text, 50)
        assert copy.decode(tok.encode(text, 50).ids) == tok.decode(tok.encode(text, 50).ids)


def test_rejects_tokenizer_without_the_specials_first():
    data = json.loads(train_tokenizer(TEXTS, VOCAB_SIZE).to_str())
    vocab = data["model"]["vocab"]
    vocab["<pad>"], vocab["<s>"] = vocab["<s>"], vocab["<pad>"]
    with pytest.raises(ValueError):
        SubwordTokenizer.from_json(json.dumps(data))


# --- word annotations on pieces ------------------------------------------------------------------

WORD_LISTS = [
    ("Der", "Hund", "schläft", "."),
    (
        "The",
        "animal",
        "didn't",
        "cross",
        "the",
        "street",
        "because",
        "it",
        "was",
        "too",
        "tired",
        ".",
    ),
    ("Wo", "ist", "er", "?", "!", ",", "Anna", "."),
    (".", "Hund", "."),
    ("", "Hund", "", "schläft"),
    ("Bus", "286", "ist", "spät", ",", "nicht", "wahr", "?"),
    (),
]


@pytest.mark.parametrize("words", WORD_LISTS)
def test_word_spans_agree_with_join_tokens(words):
    text = join_tokens(words)
    assert join_words(words) == text
    spans = word_spans(words)
    assert len(spans) == len(words)
    assert [text[start:end] for start, end in spans] == list(words)


def test_word_spans_by_hand():
    assert word_spans(("Der", "Hund", "schläft", ".")) == [(0, 3), (4, 8), (9, 16), (16, 17)]
    assert word_spans(("Wo", "?", "!", "Anna")) == [(0, 2), (2, 3), (3, 4), (5, 9)]


def test_piece_words_by_hand():
    # "Der Hund schläft in München." as Der | Hund | schl ##äft | in | Mün ##chen | .
    spans = word_spans(("Der", "Hund", "schläft", "in", "München", "."))
    offsets = [(0, 3), (4, 8), (9, 13), (13, 16), (17, 19), (20, 23), (23, 27), (27, 28)]
    assert piece_words(offsets, spans) == [0, 1, 2, 2, 3, 4, 4, 5]
    with pytest.raises(ValueError):
        piece_words([(0, 5)], spans)  # "Der H" lies in two words


def test_piece_alignment_by_hand():
    # The | dog | didn't | see | Mun ##ich | .       (English words 0-5, pieces 0-6)
    src = [0, 1, 2, 3, 4, 4, 5]
    # Der | Hund | sah | Mün ##chen | nicht | .     (German words 0-5, pieces 0-6)
    tgt = [0, 1, 2, 3, 3, 4, 5]
    alignment = ((0,), (1,), (3,), (4,), (2,), (5,))
    assert piece_alignment(src, tgt, alignment) == [
        (0,),
        (1,),
        (3,),
        (4, 5),
        (4, 5),
        (2,),
        (6,),
    ]
    # A German word aligned to two English words, one of them in two pieces, and one to none.
    assert piece_alignment(src, [0, 1, 1], ((4, 0), ())) == [(0, 4, 5), (), ()]


def test_piece_links_by_hand():
    # The | cat | sleeps | , | because | it | is | tir ##ed | .
    src = [0, 1, 2, 3, 4, 5, 6, 7, 7, 8]
    # Die | Kat ##ze | schläft | , | weil | sie | mü ##de | ist | .
    tgt = [0, 1, 1, 2, 3, 4, 5, 6, 6, 7, 8]
    links = [Coreference(pronoun=5, antecedent=(0, 1), german_pronoun=5)]
    assert piece_links(src, tgt, links) == [
        PieceLink(pronoun=(5,), antecedent=(0, 1), german_pronoun=(6,))
    ]
    src_split = [0, 1, 1, 2, 3, 4, 5, 5, 6, 7, 8]  # "cat" and "it" in two pieces each
    assert piece_links(src_split, tgt, links) == [
        PieceLink(pronoun=(6, 7), antecedent=(0, 1, 2), german_pronoun=(6,))
    ]


def test_example_on_pieces(tok):
    """A hand-made corpus example through the trained tokenizer: the name is the only word
    in several pieces (every other word is in FREQUENT, so one piece)."""
    example = Example(
        english=("The", "cat", "sees", NAME, ",", "because", "it", "is", "tired", "."),
        german=("Die", "Katze", "sieht", NAME, ",", "weil", "sie", "müde", "ist", "."),
        alignment=((0,), (1,), (2,), (3,), (4,), (5,), (6,), (8,), (7,), (9,)),
        coreference=(Coreference(pronoun=6, antecedent=(0, 1), german_pronoun=6),),
        phenomena=frozenset(),
    )
    k = len(tok.encode(NAME, 10).tokens)
    assert k >= 2
    src_ids, src_words = tok.encode_words(example.english)
    tgt_ids, tgt_words = tok.encode_words(example.german)
    assert src_ids == list(tok.encode(example.english_text, 50).ids)
    assert tgt_ids == list(tok.encode(example.german_text, 50).ids)
    name = tuple(range(3, 3 + k))  # the name's pieces, in both sentences
    assert src_words == [0, 1, 2] + [3] * k + [4, 5, 6, 7, 8, 9]
    assert tgt_words == src_words
    after = 3 + k  # first piece after the name
    assert piece_alignment(src_words, tgt_words, example.alignment) == (
        [(0,), (1,), (2,)]
        + [name] * k
        + [(after,), (after + 1,), (after + 2,), (after + 4,), (after + 3,), (after + 5,)]
    )
    assert piece_links(src_words, tgt_words, example.coreference) == [
        PieceLink(pronoun=(after + 2,), antecedent=(0, 1), german_pronoun=(after + 2,))
    ]
