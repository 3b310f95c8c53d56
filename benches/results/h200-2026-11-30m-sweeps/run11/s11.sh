set -uo pipefail
# Sweep 11: where the ~20 us of fixed time a call goes (profiling knobs, wrong results):
# decode_ablate 1 no reduce pass, 64 no query loads (zeros), 128 nothing after the last tile (no
# merge, no partial writes), 32 no K/V loads; lengths from 8192 for the line's intercept.
t=/tmp/s11; mkdir -p $t
r="bash .device/on-device.sh"
ks="none decode_ablate=1 decode_ablate=64 decode_ablate=128 decode_ablate=129 decode_ablate=193 decode_ablate=32"
d="--decode --len 8192,16384,32768,65536,131072 --fused-only"
for i in 1 2; do
  for k in $ks; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1; done
done
tar -C /tmp -czf $OUT/s11.tgz s11
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3, $18}')"; done
