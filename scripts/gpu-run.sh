#!/usr/bin/env bash
# The one prepared command for the GPU machine (docs/translator.md, "Training on a GPU"): in
# one run of at most 9 minutes (GPU_RUN_SECONDS), with every figure written under $OUT (the
# folder that comes back), while the training texts are generated on the CPU cores beside
# phases 1 and 2:
#   1. the CUDA checks: tests/runtime/test_cuda.py (marked `cuda`; skipped where no GPU is);
#   2. timings: the translator's forward with every attention captured against the same weights
#      through fused scaled_dot_product_attention, at 16 / 128 / 512 tokens (bench/gpu.py);
#   3. training: configs/en-de-gpu.toml, its budget measured in its first steps, a quick held-out
#      look, the weights split into parts under 16 MiB, with the sidecar (loss history, tokens/s).
# Run there from the repository root, as the device tool runs commands:
#     bash scripts/gpu-run.sh
# and here, after the files came back: bash scripts/gpu-collect.sh FOLDER. It runs on a CPU as
# well (how it is tried before a GPU is lent; tests/scripts/test_gpu_run.py):
#     OUT=/tmp/gpu GPU_RUN_DEVICE=cpu GPU_RUN_RECIPE=tiny.toml GPU_RUN_LENGTHS=16 bash scripts/gpu-run.sh
# A phase that fails is reported and the next one still runs: a failed check must not cost the
# training run, nor the reverse. The exit status is that of the first phase that failed.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder whose files come back}"
PY=${PYTHON:-python3}
DEVICE=${GPU_RUN_DEVICE:-cuda}
RECIPE=${GPU_RUN_RECIPE:-configs/en-de-gpu.toml}
LENGTHS=${GPU_RUN_LENGTHS:-16 128 512}
REPEATS=${GPU_RUN_REPEATS:-30}
# The device tool kills a command at its time limit (600 s at most), and then nothing comes back
# but $OUT as it stands: the run ends by GPU_RUN_SECONDS, training stops early enough to leave
# GPU_RUN_RESERVE seconds for the quick look, the weights and the log, and each check is capped.
RUN_SECONDS=${GPU_RUN_SECONDS:-560}
RESERVE=${GPU_RUN_RESERVE:-80}
# A second run in one session (GPU_RUN_CHECKS=0) skips the checks and timings the first one
# made; GPU_RUN_LOOK=0 ships without the quick held-out look (the CPU evaluates it after), for a
# run whose every minute goes to training.
CHECKS=${GPU_RUN_CHECKS:-1}
LOOK=${GPU_RUN_LOOK:-1}
FINISH_BY=$(( $(date +%s) + RUN_SECONDS - RESERVE ))
WORK=$(mktemp -d)
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
mkdir -p "$OUT"
LOG="$OUT/run.log"
status=0
started=$SECONDS

phase() {  # phase NAME COMMAND...: run it, log its wall time and exit status
  local name=$1 t=$SECONDS rc
  shift
  echo "== $name: started at $(date -u +%T), $((SECONDS - started)) s into the run" | tee -a "$LOG"
  "$@"
  rc=$?
  echo "== $name: exit $rc after $((SECONDS - t)) s" | tee -a "$LOG"
  [ "$status" -eq 0 ] && status=$rc
  return 0
}

machine() {
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 || true
  "$PY" -c 'import torch, sys; print("python", sys.version.split()[0], "torch", torch.__version__,
"cuda", torch.version.cuda, "sees a GPU:", torch.cuda.is_available(), "cores", __import__("os").cpu_count())'
}

cuda_checks() {
  timeout 150 "$PY" -m pytest -q -rs -m cuda -p no:cacheprovider tests/runtime/test_cuda.py \
    > "$OUT/cuda-tests.log" 2>&1
  local rc=$?
  tail -n 5 "$OUT/cuda-tests.log" | tee -a "$LOG"
  return $rc
}

timings() {
  timeout 90 "$PY" -m bench.gpu --device "$DEVICE" --lengths $LENGTHS --repeats "$REPEATS" \
    --out "$OUT/timings.json" 2>&1 | tee -a "$LOG"
}

training() {
  local look=--quick-look
  [ "$LOOK" = 0 ] && look=--no-look
  "$PY" -m model.train --recipe "$RECIPE" --device "$DEVICE" $look --finish-by "$FINISH_BY" \
    --checkpoint-dir "$WORK/checkpoint" --out-dir "$WORK/weights" > "$OUT/train.log" 2>&1
  local rc=$?
  grep -E "training pairs|measured|shipped|Error|error" "$OUT/train.log" | tee -a "$LOG"
  [ $rc -ne 0 ] && return $rc
  local weights
  weights=$(ls "$WORK"/weights/*.safetensors) || return 1
  # parts under the 16 MiB a returned file may have; gpu-collect.sh joins and checks them
  split -b 15M -d "$weights" "$OUT/$(basename "$weights").part-"
  cp "${weights%.safetensors}.json" "$OUT/"
  "$PY" - "${weights%.safetensors}.json" <<'PYTHON' | tee -a "$LOG"
import json, sys
side = json.load(open(sys.argv[1]))
t = side["training"]
print(f"{t['steps']} steps, {t['target_tokens_seen']:,} target tokens in {t['wall_time_minutes']} min:"
      f" {t['target_tokens_per_second']:,} target tokens/s;"
      f" quick look {json.dumps(side['metrics'].get('quick_look', 'not made'))}")
PYTHON
}

# the training texts are generated on the CPU cores while the GPU is checked and timed
nice -n 10 "$PY" -m model.train --recipe "$RECIPE" --data-only > "$WORK/data.log" 2>&1 &
data_job=$!
training_data() {  # at most 8 files come back: this log goes into run.log
  wait "$data_job"
  local rc=$?
  tail -n 3 "$WORK/data.log" | tee -a "$LOG"
  return $rc
}

phase machine machine
if [ "$CHECKS" != 0 ]; then
  phase cuda-checks cuda_checks
  phase timings timings
fi
phase training-data training_data
phase training training
echo "== done in $((SECONDS - started)) s, exit $status; files: $(ls "$OUT" | tr '\n' ' ')" | tee -a "$LOG"
rm -rf "$WORK"
exit $status
