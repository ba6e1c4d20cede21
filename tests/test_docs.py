"""Every link and every command that README.md, CONTRIBUTING.md and docs/ name resolves (issue
66): a file moved, a heading renamed, a make target or module dropped fails here, not in a
reader's hands. Links are read as a Markdown renderer reads them (markdown-it-py, CommonMark);
anchors follow GitHub's heading ids (lower case, punctuation dropped, spaces to hyphens)."""

from __future__ import annotations

import importlib.util
import re
import shlex
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").rglob("*.md")])
MD = MarkdownIt("commonmark").enable("table")
IMG_SRC = re.compile(r"""<img\b[^>]*\bsrc=["']([^"']+)["']""")


def _tokens(page: Path):
    """Every inline token of the page, children included."""
    for token in MD.parse(page.read_text(encoding="utf-8")):
        yield token
        yield from token.children or []


def links(page: Path) -> list[str]:
    """The targets of the page's links and images, HTML <img> tags included."""
    found = []
    for token in _tokens(page):
        if token.type == "link_open":
            found.append(str(token.attrs["href"]))
        elif token.type == "image":
            found.append(str(token.attrs["src"]))
        elif token.type in ("html_inline", "html_block"):
            found += IMG_SRC.findall(token.content)
    return found


def github_id(heading: str) -> str:
    """The id GitHub gives a heading: lower case, all but letters, digits, spaces, hyphens and
    underscores dropped, each space a hyphen."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@cache
def anchors(page: Path) -> set[str]:
    ids: set[str] = set()
    tokens = list(MD.parse(page.read_text(encoding="utf-8")))
    for opening, inline in zip(tokens, tokens[1:]):
        if opening.type == "heading_open":
            text = "".join(
                c.content for c in inline.children or [] if c.type in ("text", "code_inline")
            )
            base, n = github_id(text), 1
            while (anchor := base if n == 1 else f"{base}-{n - 1}") in ids:
                n += 1
            ids.add(anchor)
    return ids


def _relative(page: Path):
    for target in links(page):
        parts = urlsplit(target)
        if parts.scheme or parts.netloc:
            continue  # an outside address: not fetched (no network here)
        yield target, parts


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_resolves(page):
    broken = []
    for target, parts in _relative(page):
        path = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif parts.fragment and path.suffix == ".md" and parts.fragment not in anchors(path):
            broken.append(f"{target}: no heading #{parts.fragment} in {path.name}")
    assert not broken, broken


def _code(page: Path) -> list[str]:
    """The page's code: each line of a code block, each inline code span."""
    found = []
    for token in _tokens(page):
        if token.type in ("fence", "code_block"):
            found += token.content.splitlines()
        elif token.type == "code_inline":
            found.append(token.content)
    return found


@cache
def make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([A-Za-z][\w-]*):", text, flags=re.M))


def _command_problems(line: str) -> list[str]:
    try:
        words = shlex.split(line.split(" #")[0])
    except ValueError:
        return []  # not a shell line
    problems = []
    for i, word in enumerate(words):
        following = words[i + 1] if i + 1 < len(words) else ""
        if word == "make" and following and not following.startswith("-") and "=" not in following:
            if following not in make_targets():
                problems.append(f"make {following}: no such target in the Makefile")
        if word == "-m" and following and re.fullmatch(r"[\w.]+", following):
            if following not in ("venv", "pip") and importlib.util.find_spec(following) is None:
                problems.append(f"-m {following}: no such module")
        if word.startswith(".venv/bin/") and not (ROOT / word).exists():
            problems.append(f"{word}: make test's virtual environment has no such command")
        # a path given to a command (a lone path in the text may name a file to create)
        if len(words) > 1 and re.fullmatch(
            r"(configs|scripts|corpus|model|runtime|viz|ui|bench|deploy)/[\w./-]+", word
        ):
            if not (ROOT / word).exists():
                problems.append(f"{word}: no such file")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_command_resolves(page):
    problems = [p for line in _code(page) for p in _command_problems(line)]
    assert not problems, problems


def test_the_checks_can_fail(tmp_path):
    """The readers above find what they look for: a broken link, a missing heading, a make target,
    a module and a file that do not exist (guards against a parser that finds nothing)."""
    page = tmp_path / "page.md"
    page.write_text(
        "# A heading, with punctuation!\n\n[ok](#a-heading-with-punctuation) [gone](#nowhere) "
        '[file](missing.md) <img src="missing.png" width="9">\n\n'
        "```sh\nmake nowhere\npython -m no_such_module\nls configs/no-such.toml\nmake app\n"
        ".venv/bin/attention-atlas-gone --list\n```\n"
    )
    assert links(page) == ["#a-heading-with-punctuation", "#nowhere", "missing.md", "missing.png"]
    assert anchors(page) == {"a-heading-with-punctuation"}
    problems = [p for line in _code(page) for p in _command_problems(line)]
    assert problems == [
        "make nowhere: no such target in the Makefile",
        "-m no_such_module: no such module",
        "configs/no-such.toml: no such file",
        ".venv/bin/attention-atlas-gone: make test's virtual environment has no such command",
    ]
