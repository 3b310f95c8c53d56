set -uo pipefail
# Run 101: the SASS of the committed decode kernel at 16384 keys (scripts/sass.sh capture), and
# the split pass's time without K/V loads (decode_ablate=32, wrong results: the loop's work
# alone) beside the default, 6 calls each alternating.
o=/tmp/s101; mkdir -p $o
r="bash .device/on-device.sh"
bash scripts/sass.sh capture $o/cache --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $o/capture.txt 2>&1
echo "capture rc=$?"; grep "CS: Register" $o/cache/pipeline_stats.txt
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 1024,4096,16384,131072 --fused-only"
declare -A V=( [base]="" [noload]="decode_ablate=32" [noq]="decode_ablate=64" )
for i in 1 2 3 4 5 6; do
  if [ $((i % 2)) = 1 ]; then order="base noload noq"; else order="noq noload base"; fi
  for n in $order; do WGPU_SDPA_TUNE="${V[$n]}" timeout 60 $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1; done
done
for n in base noload noq; do for i in 1 2 3 4 5 6; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $o/$n-$i.txt | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done; done
tar -C /tmp -czf $OUT/s101.tgz s101
