"""Weights on disk: safetensors (never pickle) plus a JSON sidecar whose sha256 is checked first."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file

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


def save_weights(state_dict: dict[str, torch.Tensor], path: Path, sidecar: dict[str, Any]) -> None:
    """Write the tensors (fp16) and a sidecar holding `sidecar` plus the file's sha256."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {k: v.detach().to(torch.float16).contiguous() for k, v in state_dict.items()}
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


def load_weights(path: Path, expected_sha256: str) -> dict[str, torch.Tensor]:
    """The tensors of a safetensors file, in float32, after checking its sha256."""
    path = Path(path)
    if not path.exists():
        raise WeightsError(f"the weights file {path.name} is missing")
    actual = sha256_of(path)
    if actual != expected_sha256:
        raise WeightsError(
            f"the weights file {path.name} is damaged: its sha256 is {actual[:12]}…, "
            f"expected {expected_sha256[:12]}…"
        )
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
    model.load_state_dict(tensors)
    return model, sidecar
