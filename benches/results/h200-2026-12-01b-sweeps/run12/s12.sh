set -uo pipefail
# Sweep 12: decode_vlag=1 (162 registers) with 4 subgroups a workgroup (128 threads: three
# workgroups an SM fit) and more workgroups (decode_wgs 396, 528); the same without the lag.
t=/tmp/s12; mkdir -p $t
r="bash .device/on-device.sh"
d="--decode --len 1024,4096,16384,32768,131072 --fused-only"
for i in 1 2; do
  for k in decode_vlag=1,decode_teams=4,decode_wgs=396 decode_vlag=1,decode_teams=4,decode_wgs=528 decode_teams=4,decode_wgs=528 base; do
    WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s12.tgz s12
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
