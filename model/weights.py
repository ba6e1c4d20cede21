"""Weights on disk: safetensors (never pickle) plus a JSON sidecar whose sha256 is checked first."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file
from torch import Tensor, nn

from .transformer import EncoderDecoder, TransformerConfig

# The weights trained here ship beside the code that defines their network.
WEIGHTS_DIR = Path(__file__).parent / "weights"


class WeightsError(RuntimeError):
    """A weights file that is missing, damaged or does not match its sidecar."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def sidecar_path(weights_path: Path) -> Path:
    return weights_path.with_suffix(".json")


def without_tied_copies(state_dict: dict[str, Tensor]) -> dict[str, Tensor]:
    """`state_dict` with every tensor under its first name only. Section 3.4 shares one matrix
    between the two embeddings and the pre-softmax linear map, and `state_dict()` lists it under
    all three names: stored three times, it made a training checkpoint 16 MB larger."""
    seen: set[tuple[int, tuple[int, ...], tuple[int, ...]]] = set()
    unique: dict[str, Tensor] = {}
    for name, tensor in state_dict.items():
        where = (tensor.data_ptr(), tuple(tensor.shape), tuple(tensor.stride()))
        if tensor.numel() and where in seen:
            continue
        seen.add(where)
        unique[name] = tensor
    return unique


def load_tied(model: nn.Module, tensors: dict[str, Tensor]) -> None:
    """`model.load_state_dict(tensors)` as strict as ever, except that a tied tensor may be
    stored under one of its names only (`without_tied_copies`)."""
    own = model.state_dict()
    tied_copies = set(own) - set(without_tied_copies(own))
    result = model.load_state_dict(tensors, strict=False)
    missing = sorted(set(result.missing_keys) - tied_copies)
    if missing or result.unexpected_keys:
        raise RuntimeError(
            f"the tensors do not fit the network: missing {missing}, "
            f"unexpected {sorted(result.unexpected_keys)}"
        )


def save_weights(state_dict: dict[str, Tensor], path: Path, sidecar: dict[str, Any]) -> None:
    """Write the tensors (fp16, each tied tensor once) and a sidecar holding `sidecar` plus the
    file's sha256."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {
        k: v.detach().to(torch.float16).contiguous()
        for k, v in without_tied_copies(state_dict).items()
    }
    save_file(tensors, str(path))
    write_sidecar(path, dict(sidecar, sha256=sha256_of(path), file=path.name))


def write_sidecar(weights_path: Path, record: dict[str, Any]) -> None:
    sidecar_path(Path(weights_path)).write_text(
        json.dumps(record, indent=1, ensure_ascii=False) + "\n"
    )


def read_sidecar(path: Path) -> dict[str, Any]:
    side = sidecar_path(Path(path))
    if not side.exists():
        raise WeightsError(f"the sidecar {side.name} is missing")
    try:
        sidecar: dict[str, Any] = json.loads(side.read_text())
    except json.JSONDecodeError as err:
        raise WeightsError(f"the sidecar {side.name} is not valid JSON ({err})") from None
    return sidecar


def check_sha256(path: Path, expected_sha256: str) -> None:
    """Raise WeightsError unless the file at `path` exists and has this sha256."""
    path = Path(path)
    if not path.exists():
        raise WeightsError(f"the weights file {path.name} is missing")
    actual = sha256_of(path)
    if actual != expected_sha256:
        raise WeightsError(
            f"the weights file {path.name} is damaged: its sha256 is {actual[:12]}…, "
            f"expected {expected_sha256[:12]}…"
        )


def load_weights(path: Path, expected_sha256: str) -> dict[str, Tensor]:
    """The tensors of a safetensors file, in float32, after checking its sha256."""
    path = Path(path)
    check_sha256(path, expected_sha256)
    try:
        tensors = load_file(str(path))
    except Exception as err:  # safetensors raises several types for a malformed file
        raise WeightsError(f"the weights file {path.name} cannot be read ({err})") from None
    return {k: v.float() for k, v in tensors.items()}


def load_checked_model(path: Path) -> tuple[EncoderDecoder, dict[str, Any]]:
    """The network saved at `path` (its config and tensors from the sidecar and the safetensors
    file, the file checked against the sidecar's sha256) and the sidecar itself.

    Raises WeightsError for a missing or damaged file, and KeyError, TypeError or RuntimeError when
    the tensors do not fit the recorded config.
    """
    sidecar = read_sidecar(path)
    if "sha256" not in sidecar:
        raise WeightsError(
            f"the sidecar of {Path(path).name} records no sha256 to check it against"
        )
    tensors = load_weights(path, sidecar["sha256"])
    model = EncoderDecoder(TransformerConfig(**sidecar["config"]))
    load_tied(model, tensors)
    return model, sidecar
