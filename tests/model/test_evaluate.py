"""The held-out figures of model/evaluate.py on hand-made hypotheses (the trained model's own
figures are tested in test_train.py's rescoring and look tests)."""

from corpus.grammar import Coreference, Example
from model.evaluate import pronoun_right

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
