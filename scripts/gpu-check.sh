#!/usr/bin/env bash
# The worker runtime's GPU check, for a machine with NVIDIA GPUs and a python with CUDA torch:
# what the machine offers (driver, GPUs, torch, NCCL), then the built ejob-agent (static, copied
# here as it is into a worker image) running tests/agent/nccl_allreduce.py with
# `--standalone --nproc_per_node=gpu` — one worker per GPU, a real NCCL all-reduce whose sum is
# checked — and the same script under the machine's own torchrun, side by side, with the wall
# time of each; then one c10d rendezvous of an ejob-agent and a torchrun agent of that torch (each
# hosting the store in turn), a gloo all-reduce over 4 ranks. Exits non-zero when a step fails.
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

# How torchrun is started: `-m torch.distributed.run`, or a wrapper script (TORCHRUN_WRAPPER;
# Debian 12's torch 1.13 needs tests/agent/torchrun_wrapper.py on Python 3.11).
torchrun_module=(-m torch.distributed.run)
[ -n "${TORCHRUN_WRAPPER:-}" ] && torchrun_module=("$TORCHRUN_WRAPPER")

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

# One c10d rendezvous of an ejob-agent and a torchrun agent of the machine's torch, 2 workers
# each, a gloo all-reduce over the world of 4 (sum 10); HOST says which of the two hosts the
# TCPStore (the other joins with is_host=0).
mixed_rendezvous() {
  local host=$1 port dir pids=() rc=0
  port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  dir=$(mktemp -d)
  local common=(--local_addr=127.0.0.1 --rdzv_backend=c10d "--rdzv_endpoint=127.0.0.1:$port"
    "--rdzv_id=mixed-$host" --nnodes=2 --nproc_per_node=2)
  local worker=(tests/agent/gloo_allreduce.py --expect-world 4 --out "$dir")
  local ejob_conf=--rdzv_conf=is_host=0 torchrun_conf=--rdzv_conf=is_host=1
  [ "$host" = ejob ] && { ejob_conf=--rdzv_conf=is_host=1; torchrun_conf=--rdzv_conf=is_host=0; }
  AGENT_TAG=ejob PYTHON_EXEC=$python timeout 120 "$agent" "${common[@]}" "$ejob_conf" "${worker[@]}" \
    >"$dir/ejob.log" 2>&1 &
  pids+=($!)
  AGENT_TAG=torchrun timeout 120 "$python" "${torchrun_module[@]}" "${common[@]}" "$torchrun_conf" \
    "${worker[@]}" >"$dir/torchrun.log" 2>&1 &
  pids+=($!)
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  for r in "$dir"/r*.json; do [ -f "$r" ] && { cat "$r"; echo; }; done
  local ok
  ok=$(grep -l '"ok": true' "$dir"/r*.json 2>/dev/null | wc -l)
  if [ "$rc" -ne 0 ] || [ "$ok" -ne 4 ]; then
    tail -n 30 "$dir/ejob.log" "$dir/torchrun.log"
    fail "mixed c10d rendezvous, $host hosting the store ($ok of 4 ranks ok)"
  else
    echo "mixed c10d rendezvous, $host hosting the store: 4 ranks, sum 10, both agents exit 0"
  fi
  rm -rf "$dir"
}

section "ejob-agent and the machine's torchrun in one c10d rendezvous (gloo)"
mixed_rendezvous ejob
mixed_rendezvous torchrun

exit $status
