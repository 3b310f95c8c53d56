#!/usr/bin/env bash
# Run 5: the decode kernel timed per call and back to back (encoder timestamps around the loop,
# as torch_sdpa_bench.py times), with splits aimed at 132..528 workgroups; PyTorch beside.
set -uo pipefail
o=/tmp/s5; mkdir -p $o
r="bash .device/on-device.sh"
for w in 264 132 396 528; do
  WGPU_SDPA_TUNE=decode_wgs=$w $r .device/sdpa bench --decode --fused-only --len 4096,16384,32768,131072 --budget-ms 60 > $o/decode-wgs$w.txt 2>&1
done
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens 4096 16384 32768 131072 > $o/torch-decode.txt 2>&1
tar -C /tmp -czf $OUT/s5.tgz s5
