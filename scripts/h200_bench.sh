#!/usr/bin/env bash
# The H200 run behind BENCHMARKS.md: on the GPU machine, from the project root, after
# `bash ../shared/gpu/prepare.sh --release --bins` here and with `.device/` carried along:
#   bash scripts/h200_bench.sh OUT_DIR
# (and `--examples` for the register counts, `examples/pipeline_stats.rs`).
# Runs info, the correctness check, our bench (the planner's fused kernel: cooperative matrices
# for f16, and for f32 split onto f16 fragments from q_len 33 and 512 x 512 positions, the
# portable kernel below), the portable kernel on the f16 and f32 rows, the L = 32768 memory row,
# PyTorch's bench on the same shapes, the decode sweep beside PyTorch's, and short queries
# against long caches beside the fused kernel and PyTorch, in one go on one machine.
set -uo pipefail
out=${1:?output folder}
run="bash .device/on-device.sh .device/sdpa"
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $run info; } > "$out/info.txt" 2>&1
$run check > "$out/check.txt" 2>&1; echo "check exit $?" >> "$out/check.txt"
$run bench --json "$out/bench.json" > "$out/bench.txt" 2>&1
$run bench --portable --dtype f16 > "$out/portable.txt" 2>&1
$run bench --portable --dtype f32 > "$out/portable-f32.txt" 2>&1
$run bench --dtype f16 --hdim 128 --len 32768 --fused-only --budget-ms 100 > "$out/long.txt" 2>&1
{
  python3 .device/torch_sdpa_bench.py
  python3 .device/torch_sdpa_bench.py --hdim 128 --lens 4096 --heads 32 8
  python3 .device/torch_sdpa_bench.py --hdim 64 128 --lens 4096 --mask causal
} > "$out/torch.txt" 2>&1
# Decode (issue #5): q_len 1, 32/8 heads, head dim 128, f16.
# The planner's decode kernels (cooperative matrices up to 4096 keys, f32 math beyond), then the
# f32 kernel at every length for comparison.
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$run bench --decode --len $lens --json "$out/decode.json" > "$out/decode.txt" 2>&1
WGPU_SDPA_TUNE=decode_coop=0 $run bench --decode --len $lens --json "$out/decode-vector.json" \
  > "$out/decode-vector.txt" 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > "$out/torch-decode.txt" 2>&1
# Short queries against long caches (chunked prefill, speculative decoding): the planner's kernel
# (the decode kernel, or a fused one with the keys split), the fused kernel with --no-decode, and
# PyTorch.
short="--dtype f16,f32 --hdim 64,128 --heads 32,8 --len 9,16,24,32,64,128,256 --kv-len 512,4096,16384"
$run bench $short --json "$out/short.json" > "$out/short.txt" 2>&1
$run bench $short --no-decode --fused-only --json "$out/short-fused.json" > "$out/short-fused.txt" 2>&1
python3 scripts/torch_short_queries.py --dtype float16 float32 --hdim 64 128 --heads 32 8 \
  --q-lens 9 16 24 32 64 128 256 --kv-lens 512 4096 16384 > "$out/torch-short.txt" 2>&1
# Registers per thread (the NVIDIA driver's pipeline statistics) of the kernels the planner picks
# for the main shapes, where pipeline_stats was built.
if [ -x .device/pipeline_stats ]; then
  {
    for shape in "--q-len 4096 --hdim 64 --dtype f16" "--q-len 4096 --hdim 128 --dtype f16" \
        "--q-len 4096 --hdim 64 --dtype f32" "--q-len 4096 --hdim 80 --dtype f32" \
        "--q-len 4096 --hdim 128 --dtype f32" "--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16" \
        "--heads 32,8 --q-len 64 --kv-len 16384 --hdim 128 --dtype f32"; do
      echo "### pipeline_stats $shape"
      bash .device/on-device.sh .device/pipeline_stats $shape
    done
  } > "$out/registers.txt" 2>&1
fi
