#!/usr/bin/env bash
# The worker runtime's GPU check, for a machine with NVIDIA GPUs and a python with CUDA torch:
# what the machine offers (driver, GPUs, torch, NCCL), then the built ejob-agent (static, copied
# here as it is into a worker image) running tests/agent/nccl_allreduce.py with
# `--standalone --nproc_per_node=gpu` — one worker per GPU, a real NCCL all-reduce whose sum is
# checked — and the same script under the machine's own torchrun, side by side, with the wall
# time of each. Exits non-zero when a step fails.
#   scripts/gpu-check.sh [AGENT]     AGENT defaults to build/ci/ejob-agent
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
agent=${1:-build/ci/ejob-agent}
status=0

section() { printf '\n== %s\n' "$1"; }
fail() {
  echo "gpu-check: FAILED: $1" >&2
  status=1
}

# The first python that imports torch with CUDA: PYTHON_EXEC (as ejob-agent reads it), then the
# usual places of images and GPU hosts.
find_python() {
  local p
  for p in "${PYTHON_EXEC:-}" python3 /opt/venv/bin/python /opt/conda/bin/python /usr/bin/python3; do
    if [ -z "$p" ] || ! command -v "$p" >/dev/null; then continue; fi
    "$p" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null &&
      { command -v "$p"; return 0; }
  done
  return 1
}

section "machine"
uname -r
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader || fail "nvidia-smi"
for g in /proc/driver/nvidia/gpus/*; do [ -e "$g" ] && echo "gpu bus id: ${g##*/}"; done
ldd --version | head -1

section "python and torch"
python=$(find_python) || { fail "no python here imports torch with CUDA"; exit 1; }
echo "python: $python"
"$python" -c 'import torch, torch.distributed as d
print("torch", torch.__version__, "cuda", torch.version.cuda, "gpus", torch.cuda.device_count(),
      "nccl", ".".join(map(str, torch.cuda.nccl.version())), "nccl available", d.is_nccl_available())'

section "ejob-agent"
file "$agent" 2>/dev/null || true
"$agent" --version || fail "ejob-agent does not run here"

run_timed() {  # NAME COMMAND...: runs it, prints its output and wall time
  local name=$1 start end
  shift
  start=$(date +%s%N)
  "$@"
  local rc=$?
  end=$(date +%s%N)
  printf '%s: exit %d, %d ms\n' "$name" "$rc" $(((end - start) / 1000000))
  return $rc
}

section "NCCL all-reduce under ejob-agent (--standalone --nproc_per_node=gpu)"
PYTHON_EXEC=$python run_timed ejob-agent "$agent" --standalone --nproc_per_node=gpu \
  tests/agent/nccl_allreduce.py --mib 256 || fail "ejob-agent + NCCL"

section "the same under the machine's torchrun"
run_timed torchrun "$python" -m torch.distributed.run --standalone --nproc_per_node=gpu \
  tests/agent/nccl_allreduce.py --mib 256 || fail "torchrun + NCCL"

exit $status
