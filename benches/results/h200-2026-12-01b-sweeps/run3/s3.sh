set -uo pipefail
# Sweep 3: the subgroup decode kernel's loads with almost no arithmetic (decode_ablate=64: the
# loaded words folded by xor), with and without the reduce pass; its SASS (scripts/sass.sh).
t=/tmp/s3; mkdir -p $t
r="bash .device/on-device.sh"
bash scripts/sass.sh capture $t/cache --heads 32,8 --kv-len 16384 --q-len 1 --hdim 128 --dtype f16 > $t/capture.txt 2>&1
d="--decode --len 1024,4096,16384,32768,131072 --fused-only"
for i in 1 2; do
  for k in base decode_ablate=64 decode_ablate=65 decode_ablate=1; do
    WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
done
WGPU_SDPA_TUNE=decode_ablate=64 $r .device/pipeline_stats --heads 32,8 --kv-len 16384 --q-len 1 --hdim 128 --dtype f16 > $t/regs-64.txt 2>&1
tar -C /tmp -czf $OUT/s3.tgz s3
grep -h "CS: Register" $t/regs-*.txt $t/cache/pipeline_stats.txt
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
