"""The first corpus's English→German pairs written by hand (corpus/data/hand_checked_v1.tsv)."""

from corpus.hand_checked import pairs

HAND_CHECKED: list[tuple[str, str]] = [(p.english, p.german) for p in pairs("v1")]
