set -uo pipefail
# Run 130 (thirtieth session): where run 129's matrix scores (decode_ms=1, K's fragments from
# storage) lose their time. Profiling variants (wrong results): spirv_sgmem=0, subgroup
# barriers without the workgroup-memory bit; decode_ablate=128, no subgroup barriers around the
# team's scores in workgroup memory; decode_ablate=256, no K fragment loads (zeros).
o=/tmp/s130; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
declare -A K=([ms0]="decode_ms=0" [ms1]="decode_ms=1" [sgm]="decode_ms=1,spirv_sgmem=0" [nob]="decode_ms=1,decode_ablate=128" [nok]="decode_ms=1,decode_ablate=256" [nobk]="decode_ms=1,decode_ablate=384")
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,131072 --fused-only"
names="ms0 ms1 sgm nob nok nobk"
for i in 1 2 3; do
  for n in $names; do WGPU_SDPA_TUNE="${K[$n]}" timeout 60 $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1; done
  names=$(echo $names | tr ' ' '\n' | tac | tr '\n' ' ')
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s130.tgz s130
cd $o
for n in ms0 ms1 sgm nob nok nobk; do for i in 1 2 3; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
