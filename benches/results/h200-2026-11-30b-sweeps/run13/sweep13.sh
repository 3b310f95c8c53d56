#!/usr/bin/env bash
# Run 13: the decode kernel's output merge in fewer passes (decode_merge: vec4s a thread merges
# per pass; 1 was the kernel until now, 2 the new default under a 16 KiB budget).
set -uo pipefail
o=/tmp/s13; mkdir -p $o
r="bash .device/on-device.sh"
for k in decode_merge=1 none decode_merge=4 decode_merge=8 decode_merge=1; do
  echo "$k: $(WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 2>&1 | grep -h 'Register Count\|^plan' | head -2 | cut -c1-100 | tr '\n' ' ')" >> $o/regs.txt
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --decode --fused-only --len 1,256,4096,16384,32768,131072 --budget-ms 100 > $o/dec-$k.txt 2>&1
done
tar -C /tmp -czf $OUT/s13.tgz s13
