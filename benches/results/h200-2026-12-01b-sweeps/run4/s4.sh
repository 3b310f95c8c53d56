set -uo pipefail
# Sweep 4: the subgroup decode kernel with 2 of its 4 query vectors' arithmetic (decode_ablate=128,
# wrong results: do fewer registers let the driver issue V's loads with K's?); SASS of it.
t=/tmp/s4; mkdir -p $t
r="bash .device/on-device.sh"
WGPU_SDPA_TUNE=decode_ablate=128 bash scripts/sass.sh capture $t/cache --heads 32,8 --kv-len 16384 --q-len 1 --hdim 128 --dtype f16 > $t/capture.txt 2>&1
d="--decode --len 1024,4096,16384,32768,131072 --fused-only"
for i in 1 2; do
  for k in base decode_ablate=128 decode_ablate=129; do
    WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s4.tgz s4
grep -h "CS: Register" $t/cache/pipeline_stats.txt
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
