#!/usr/bin/env bash
# Run 4 (tree of commit cba8120 plus pipeline_stats --blocks): registers of knob variants
# (decode, coop); the portable kernel's 64x128 blocks across head dims and dtypes.
set -uo pipefail
o=/tmp/s4; mkdir -p $o
r="bash .device/on-device.sh"
P=".device/pipeline_stats"
regs() { grep -h "Register Count\|Local Memory" | awk '{print $3}' | tr '\n' ' '; }
{
for k in none decode_cpl=2 decode_cpl=1 decode_wg=128 decode_wg=512 decode_vec=0; do
  echo "decode f16 $k: $(WGPU_SDPA_TUNE=$k $r $P --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 2>&1 | regs)"
done
for k in none coop_pipe=0 coop_words=0 coop_pipe=0,coop_words=0 coop_reverse=0; do
  for d in 64 128; do
    echo "coop d$d $k: $(WGPU_SDPA_TUNE=$k $r $P --q-len 4096 --hdim $d --dtype f16 2>&1 | regs)"
  done
done
for bl in 64x64 64x128 64x32 32x64; do
  echo "coop d128 blocks $bl: $(WGPU_SDPA_TUNE=$k $r $P --q-len 4096 --hdim 128 --dtype f16 --blocks $bl 2>&1 | regs)"
done
for bl in 64x128 64x32 64x64; do
  for d in 80 96 128 256; do
    echo "portable f32 d$d blocks $bl: $(WGPU_SDPA_TUNE=$k $r $P --q-len 4096 --hdim $d --dtype f32 --blocks $bl 2>&1 | regs)"
  done
done
} > $o/regs.txt 2>&1
$r .device/sdpa bench --portable --dtype f32 --hdim 80,96,128,256 --len 1024,4096 --budget-ms 100 > $o/p32-default.txt 2>&1
$r .device/sdpa bench --portable --dtype f32 --hdim 80,96,128,256 --len 1024,4096 --fused-only --blocks 64x128 --budget-ms 100 > $o/p32-64x128.txt 2>&1
$r .device/sdpa bench --portable --dtype f32 --hdim 128 --heads 32,8 --len 4096 --fused-only --blocks 64x128 --budget-ms 100 > $o/p32-gqa-64x128.txt 2>&1
$r .device/sdpa bench --portable --dtype f32 --hdim 128 --len 4096 --mask causal --fused-only --blocks 64x128 --budget-ms 100 > $o/p32-causal-64x128.txt 2>&1
$r .device/sdpa bench --portable --dtype f16 --hdim 128 --len 4096 --fused-only --budget-ms 100 > $o/p16-default.txt 2>&1
$r .device/sdpa bench --portable --dtype f16 --hdim 128 --len 4096 --fused-only --blocks 64x128 --budget-ms 100 > $o/p16-64x128.txt 2>&1
tar -C /tmp -czf $OUT/s4.tgz s4
