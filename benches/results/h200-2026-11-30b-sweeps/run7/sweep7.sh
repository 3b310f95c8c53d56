#!/usr/bin/env bash
# Run 7: where the decode kernel's fixed time goes (decode_ablate: 1 no reduce pass, 2 no output
# merge, 4 no KV tiles; wrong results on purpose) and the first tile's loads hoisted above the
# query staging (decode_hoist=1).
set -uo pipefail
o=/tmp/s7; mkdir -p $o
r="bash .device/on-device.sh"
for k in none decode_ablate=1 decode_ablate=2 decode_ablate=4 decode_ablate=3 decode_ablate=5 decode_ablate=6 decode_ablate=7 decode_hoist=1 none; do
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --decode --fused-only --len 1,4096,16384,32768,131072 --budget-ms 100 > $o/dec-$k.txt 2>&1
done
tar -C /tmp -czf $OUT/s7.tgz s7
