#!/usr/bin/env bash
# Joins what scripts/gpu-run.sh brought back (FOLDER: the device tool's files_at) into
# runs/gpu/<name>.safetensors and its sidecar, checked against the sidecar's sha256. Then, here
# on the CPU, as for any model (about 15 minutes):
#     .venv/bin/python -m model.evaluate --weights runs/gpu/en-de.safetensors
# and ship it (copy both files to model/weights/) only if it beats the shipped translator on
# the held-out set and the hand-checked files.
set -euo pipefail
FROM=${1:?usage: scripts/gpu-collect.sh FOLDER [DEST]}
DEST=${2:-runs/gpu}
PY=${PYTHON:-.venv/bin/python}
mkdir -p "$DEST"
for sidecar in "$FROM"/*.json; do
  name=$(basename "$sidecar" .json)
  [ -e "$FROM/$name.safetensors.part-00" ] || continue
  cat "$FROM/$name.safetensors.part-"* > "$DEST/$name.safetensors"
  cp "$sidecar" "$DEST/$name.json"
  "$PY" -c 'import sys; from pathlib import Path; from model.weights import load_checked_model
load_checked_model(Path(sys.argv[1])); print("joined and checked:", sys.argv[1])' \
    "$DEST/$name.safetensors"
done
