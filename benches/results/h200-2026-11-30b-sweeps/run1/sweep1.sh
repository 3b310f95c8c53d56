#!/usr/bin/env bash
# Run 1: decode reduce old (sdpa-old: commit ad2af6f) vs new (a282105), decode knobs, portable f32
# at short lengths.
set -uo pipefail
o=/tmp/s1; mkdir -p $o
r="bash .device/on-device.sh"
L=1,256,4096,16384,32768,65536,131072
$r .device/sdpa-old bench --decode --fused-only --len $L --budget-ms 100 > $o/dec-old.txt 2>&1
$r .device/sdpa bench --decode --fused-only --len $L --budget-ms 100 > $o/dec-new.txt 2>&1
for k in decode_wgs=396 decode_wgs=528 decode_wgs=792 decode_wg=512 decode_wg=512,decode_wgs=132 decode_cpl=2; do
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --decode --fused-only --len 4096,16384,32768,131072 --budget-ms 100 > $o/dec-$k.txt 2>&1
done
$r .device/sdpa bench --decode --len 16384,32768 --budget-ms 100 > $o/dec-new-unfused.txt 2>&1
for k in none portable_fill=0 portable_fill=64 portable_fill=128 portable_fit=2 portable_fit=1 portable_rows=4; do
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --portable --dtype f32 --hdim 64,80,128 --len 64,128,256 --budget-ms 60 > $o/p32-$k.txt 2>&1
done
tar -C /tmp -czf $OUT/s1.tgz s1
