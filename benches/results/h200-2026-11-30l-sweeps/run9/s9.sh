set -uo pipefail
# Sweep 9: does the workgroup memory limit the cooperative-matrix decode kernel's workgroups per
# SM? d64 (15.4 KB) with its score array padded by 0, 4608 (33 KB) and 7680 floats (46 KB, the
# d128 kernel's), beside the f32 vector kernel; d128 for reference.
t=/tmp/s9; mkdir -p $t
r="bash .device/on-device.sh"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 --kv-len 16384,65536 --fused-only"
for i in 1 2; do
  for k in none decode_sb_pad=4608 decode_sb_pad=7680 decode_coop=0; do
    WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d64 > $t/d64-$k-$i.txt 2>&1
  done
  for k in none decode_coop=0; do
    WGPU_SDPA_TUNE=$k $r .device/sdpa bench --decode --len 16384,65536 > $t/d128-$k-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s9.tgz s9
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ms %s GB/s %s; ", $3, $11, $18, $21}' | cut -c1-200)"; done
