set -uo pipefail
# Sweep 24: the splits aimed at floor(264 / query groups) workgroups (decode_floor=1: one wave of
# two workgroups an SM) rather than the ceiling (a second wave where 264 is not a multiple of
# the query groups, e.g. 272 with 16), with splits of whole team blocks (now the default).
t=/tmp/s24; mkdir -p $t
r="bash .device/on-device.sh"
for i in 1 2; do
for sh in "32,8 --len 1" "32,8 --len 2" "32,8 --len 4" "32,32 --len 1" "32,4 --len 1" "16,2 --len 1"; do
  n=$(echo $sh | tr -d ' ,-')
  $r .device/sdpa bench --dtype f16 --hdim 128 --heads $sh --kv-len 4096,16384,65536,131072 --fused-only > $t/$n-ceil-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_floor=1 $r .device/sdpa bench --dtype f16 --hdim 128 --heads $sh --kv-len 4096,16384,65536,131072 --fused-only > $t/$n-floor-$i.txt 2>&1
done
done
tar -C /tmp -czf $OUT/s24.tgz s24
cd $t; for f in *.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}') $(grep -E '^ *[0-9]+, ' $f | head -2 | tail -1 | grep -o 'splits=[0-9x]*')"; done
