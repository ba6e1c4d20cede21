"""The models already on this machine: the Hugging Face cache and the folders the server's
configuration names, searched without a network call.

The Hugging Face cache is where `huggingface_hub` puts what it downloads: HF_HUB_CACHE, else
HF_HOME/hub, else ~/.cache/huggingface/hub; each model is a `models--org--name` folder whose
`refs/main` names the snapshot to read. Other folders come from ATLAS_MODEL_DIRS (paths joined by
the system's path separator, as PATH) or the server's `--models` option: a folder holding a model
(its config.json), or a folder of such folders (searched MAX_DEPTH levels down).

GGUF files (llama.cpp's format) are listed one by one, in a configured folder and in a cached
repository. Only the server's configuration decides what is read: a browser chooses among the
names listed here and never sends a path.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .families import inspect
from .gguf_file import GGUFModel
from .loaded import ModelUnavailable

MODEL_DIRS_ENV = "ATLAS_MODEL_DIRS"
MAX_DEPTH = 3
HF_SOURCE = "Hugging Face cache"


@dataclass(frozen=True)
class Found:
    """A model found on the machine: runnable (`reason` None) or not, and why."""

    name: str  # the registry's: "hf:org/name", "hf:org/name/<file>.gguf", "dir:…", "gguf:…"
    title: str  # how the page names it: org/name, or the folder's name
    folder: Path
    source: str  # where it was found, for the page and the command line
    architecture: str
    family: str | None = None
    layers: int = 0
    heads: int = 0
    parameters: int = 0
    reason: str | None = None

    @property
    def runnable(self) -> bool:
        return self.reason is None


def hub_cache(environ: Mapping[str, str] = os.environ) -> Path:
    """Where huggingface_hub keeps its downloads, by its own rules."""
    if environ.get("HF_HUB_CACHE"):
        return Path(environ["HF_HUB_CACHE"]).expanduser()
    if environ.get("HF_HOME"):
        return Path(environ["HF_HOME"]).expanduser() / "hub"
    cache = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache).expanduser() / "huggingface" / "hub"


def model_dirs(environ: Mapping[str, str] = os.environ) -> tuple[Path, ...]:
    """The folders the server's configuration names (ATLAS_MODEL_DIRS)."""
    parts = environ.get(MODEL_DIRS_ENV, "").split(os.pathsep)
    return tuple(Path(part).expanduser() for part in parts if part.strip())


def add_model_dirs(dirs: list[str], environ: MutableMapping[str, str] = os.environ) -> None:
    """Folders named on a command line (`--models DIR`), put before ATLAS_MODEL_DIRS's."""
    if dirs:
        kept = environ.get(MODEL_DIRS_ENV, "")
        environ[MODEL_DIRS_ENV] = os.pathsep.join([*dirs, *filter(None, [kept])])


def found(environ: Mapping[str, str] = os.environ) -> tuple[Found, ...]:
    """Every model of the cache and the configured folders, read once per configuration."""
    return _found(hub_cache(environ), model_dirs(environ))


@lru_cache(maxsize=4)
def _found(cache: Path, dirs: tuple[Path, ...]) -> tuple[Found, ...]:
    results: dict[str, Found] = {}
    for title, snapshot in _cache_snapshots(cache):
        if (snapshot / "config.json").is_file() or not _gguf_files(snapshot):
            results.setdefault(f"hf:{title}", describe(f"hf:{title}", title, snapshot, HF_SOURCE))
        for gguf in _gguf_files(snapshot):  # a repository of GGUF files: one entry each
            name = f"hf:{title}/{gguf.name}"
            results.setdefault(name, describe(name, f"{title}/{gguf.name}", gguf, HF_SOURCE))
    for root in dirs:
        for folder in _model_folders(root):
            kind = "gguf" if folder.suffix == ".gguf" else "dir"
            title = folder.name
            if f"{kind}:{title}" in results:  # two of one name: the second by its parent too
                title = f"{folder.parent.name}/{folder.name}"
            name = f"{kind}:{title}"
            results.setdefault(name, describe(name, title, folder, str(root)))
    return tuple(results.values())


def _gguf_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.suffix == ".gguf" and p.is_file())
    except OSError:
        return []


def _cache_snapshots(cache: Path) -> Iterator[tuple[str, Path]]:
    """(org/name, the snapshot folder refs/main names, else the newest) of each cached model."""
    try:
        repos = sorted(p for p in cache.iterdir() if p.name.startswith("models--"))
    except OSError:
        return
    for repo in repos:
        title = repo.name.removeprefix("models--").replace("--", "/")
        snapshots = repo / "snapshots"
        try:
            ref = (repo / "refs" / "main").read_text().strip()
        except OSError:
            ref = ""
        if ref and (snapshots / ref).is_dir():
            yield title, snapshots / ref
            continue
        try:
            candidates = [p for p in snapshots.iterdir() if p.is_dir()]
        except OSError:
            continue
        if candidates:
            yield title, max(candidates, key=lambda p: p.stat().st_mtime)


def _model_folders(root: Path, depth: int = 0) -> Iterator[Path]:
    """`root` if it holds a model (config.json, or weights without one: listed, to say so), else
    the model folders and the GGUF files under it."""
    try:
        names = {p.name for p in root.iterdir()}
    except OSError:
        return
    if "config.json" in names or any(n.endswith((".safetensors", ".bin")) for n in names):
        yield root
        return
    yield from _gguf_files(root)
    if depth >= MAX_DEPTH:
        return
    try:
        children = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return
    for child in children:
        yield from _model_folders(child, depth + 1)


def describe(name: str, title: str, folder: Path, source: str) -> Found:
    """What the page lists for a folder (or a GGUF file): its family and size, or why it cannot
    run."""
    if folder.suffix == ".gguf":
        return _describe_gguf(name, title, folder, source)
    try:
        checkpoint = inspect(folder)
    except ModelUnavailable as err:
        return Found(name, title, folder, source, _architecture(folder), reason=str(err))
    config = checkpoint.model_config
    return Found(
        name,
        title,
        folder,
        source,
        architecture=checkpoint.family.title,
        family=str(checkpoint.config.get("model_type")),
        layers=config.N,
        heads=config.h,
        parameters=checkpoint.parameters,
    )


def _describe_gguf(name: str, title: str, path: Path, source: str) -> Found:
    architecture = "GGUF"
    try:
        file = GGUFModel(path)
        architecture = f"GGUF {file.architecture}"
        config = file.check()
    except ModelUnavailable as err:
        return Found(name, title, path, source, architecture, reason=str(err))
    return Found(
        name,
        title,
        path,
        source,
        architecture=architecture,
        family=file.architecture,
        layers=config.N,
        heads=config.h,
        parameters=file.parameters(),
    )


def _architecture(folder: Path) -> str:
    """The architecture config.json names, for a model that cannot run ("unknown" without)."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        return str((config.get("architectures") or [config.get("model_type")])[0])
    except (OSError, ValueError, AttributeError, IndexError, TypeError):
        return "unknown"
