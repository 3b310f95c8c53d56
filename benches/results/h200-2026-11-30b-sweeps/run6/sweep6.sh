#!/usr/bin/env bash
# Run 6: decode occupancy knobs (registers: default 128, decode_cpl=2 99, decode_cpl=1 80,
# decode_wg=128 96) against the workgroups the splits aim for.
set -uo pipefail
o=/tmp/s6; mkdir -p $o
r="bash .device/on-device.sh"
for k in none decode_cpl=1 decode_cpl=1,decode_wgs=396 decode_cpl=1,decode_wgs=528 decode_cpl=2,decode_wgs=396 decode_cpl=2,decode_wgs=528 decode_wg=128,decode_wgs=528 decode_wg=128,decode_wgs=660 decode_wg=128,decode_wgs=792 decode_wg=128,decode_cpl=2,decode_wgs=792; do
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --decode --fused-only --len 4096,16384,32768,131072 --budget-ms 100 > $o/dec-$k.txt 2>&1
done
tar -C /tmp -czf $OUT/s6.tgz s6
