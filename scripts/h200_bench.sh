#!/usr/bin/env bash
# The H200 run behind BENCHMARKS.md: on the GPU machine, from the project root, after
# `bash ../shared/gpu/prepare.sh --release --bins` here and with `.device/` carried along:
#   bash scripts/h200_bench.sh OUT_DIR [extra sdpa bench args...]
# Runs info, the correctness check, our bench and PyTorch's on the same shapes, in one go.
set -uo pipefail
out=${1:?output folder}; shift
run="bash .device/on-device.sh .device/sdpa"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
$run info > "$out/info.txt" 2>&1
$run check > "$out/check.txt" 2>&1; echo "check exit $?" >> "$out/check.txt"
$run bench --json "$out/bench.json" "$@" > "$out/bench.txt" 2>&1
{
  python3 .device/torch_sdpa_bench.py
  python3 .device/torch_sdpa_bench.py --hdim 128 --lens 4096 --heads 32 8
  python3 .device/torch_sdpa_bench.py --hdim 64 128 --lens 4096 --mask causal
} > "$out/torch.txt" 2>&1
