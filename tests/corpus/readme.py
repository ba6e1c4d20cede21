"""What corpus/data/README.md says of the data files, read for the lexicon tests: its table of
semantic classes, its preposition inventory and each file's column list."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "corpus" / "data"


@cache
def _readme() -> str:
    return (DATA / "README.md").read_text(encoding="utf-8")


@cache
def readme_classes() -> frozenset[str]:
    """The class names of the README's table of semantic classes."""
    section = _readme().split("## Semantic classes", 1)[1].split("\n## ", 1)[0]
    names = re.findall(r"^\| ([a-z]+) \|", section, flags=re.M)
    return frozenset(n for n in names if n != "class")


@cache
def readme_inventory() -> tuple[str, ...]:
    """The preposition keys listed after 'The inventory' in the README."""
    m = re.search(r"The inventory \(keys used by verbs\.tsv\):(.*?)\.\n", _readme(), flags=re.S)
    assert m, "README lost its preposition inventory"
    return tuple(p.strip() for p in " ".join(m.group(1).split()).split(","))


@cache
def readme_header(name: str) -> tuple[str, ...]:
    """The column list given in the README for one file (the backquoted line after its heading)."""
    section = _readme().split(f"## {name}\n", 1)[1]
    m = re.search(r"^`([^`]+)`", section, flags=re.M)
    assert m, f"README lost the column list of {name}"
    return tuple(m.group(1).split("\t"))
