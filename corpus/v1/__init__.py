"""The first corpus grammar (single clauses, 108 nouns), frozen: the shipped `en-de` weights were
trained on it, and its parser gives their reference translations and gold alignments. It goes
when the translator trained on corpus v2 (the package above) replaces those weights."""
