set -uo pipefail
# Sweep 12: what the reduce pass costs: 2 the pass dispatched but returning at once, 8 no output stores, 16 no loads (24 neither).
t=/tmp/s12b; mkdir -p $t
r="bash .device/on-device.sh"
d="--decode --len 1024,4096,16384,131072 --fused-only"
for i in 1 2; do
  for k in base decode_ablate=2 decode_ablate=8 decode_ablate=16 decode_ablate=24; do
    WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s12b.tgz s12b
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
