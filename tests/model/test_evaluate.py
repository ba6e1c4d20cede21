"""The held-out figures of model/evaluate.py on hand-made hypotheses (the trained model's own
figures are tested in test_train.py's rescoring and look tests)."""

from corpus.grammar import Coreference, Example
from model.evaluate import hand_checked_changes, pronoun_right

# "The teacher saw the table because it was too wide." (the table, der Tisch: masculine "er")
TABLE = Example(
    english=tuple("The teacher saw the table because it was too wide .".split()),
    german=tuple("Der Lehrer sah den Tisch , weil er zu breit war .".split()),
    alignment=((0,), (1,), (2,), (3,), (4,), (), (5,), (6,), (8,), (9,), (7,), (10,)),
    coreference=(Coreference(pronoun=6, antecedent=(3, 4), german_pronoun=7),),
    phenomena=frozenset({"pronoun_coref", "subordinate"}),
)


def test_the_pronoun_counts_only_with_the_antecedents_gender_at_its_place():
    right = "Der Lehrer sah den Tisch, weil er zu breit war."
    wrong_gender = "Der Lehrer sah den Tisch, weil sie zu breit war."
    shifted = "Der Lehrer sah den Tisch, weil zu breit er war."
    assert pronoun_right([TABLE], [right]) == 1.0
    assert pronoun_right([TABLE], [wrong_gender]) == 0.0
    assert pronoun_right([TABLE], [shifted]) == 0.0
    assert pronoun_right([TABLE, TABLE], [right, wrong_gender]) == 0.5


def test_hand_checked_changes_name_the_pairs_that_change_hands():
    """Same count (one miss each) on v2, but a pair lost and another mended."""
    apple = ["I am eating an apple.", "Ich esse einen Apfel."]
    paper = ["Are you reading the newspaper?", "Liest du die Zeitung?"]
    shipped = {
        "hand_checked_v2": {"size": 389, "misses": [[*paper, "Lest du die Zeitung?"]]},
        "hand_checked_v1": {"size": 89, "misses": []},
        "hand_checked_v2_1": {
            "size": 243,
            "misses": [["Welcome to Berlin!", "Willkommen in Berlin!", "?"]],
        },
    }
    candidate = {
        "hand_checked_v2": {"size": 389, "misses": [[*apple, "Ich isse einen Apfel."]]},
        "hand_checked_v1": {"size": 89, "misses": []},
        "hand_checked_v2_1": {"size": 60, "misses": []},  # other pairs (--hand-size): not compared
    }
    assert hand_checked_changes(shipped, candidate) == {
        "hand_checked_v2": {
            "lost": [["I am eating an apple.", "Ich esse einen Apfel.", "Ich isse einen Apfel."]],
            "gained": [["Are you reading the newspaper?", "Liest du die Zeitung?"]],
        },
        "hand_checked_v1": {"lost": [], "gained": []},
    }
