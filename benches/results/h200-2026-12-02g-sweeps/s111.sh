set -uo pipefail
# Run 111: the committed kernels' call at 16384 keys taken apart by the profiling bits (wrong
# results on purpose): no merge (the count and its fences kept), nothing after the partial
# stores, no query loads, no K/V loads, and their combinations; 4 calls each, interleaved.
o=/tmp/s111; mkdir -p $o
SECONDS=0
declare -A V=( [base]="" [nomerge]="decode_merge_ablate=1" [nothing]="decode_merge_ablate=8" [noq]="decode_ablate=64" [nokv]="decode_ablate=32" [nokv_nothing]="decode_ablate=32,decode_merge_ablate=8" [noq_nothing]="decode_ablate=64,decode_merge_ablate=8" [noq_nokv_nothing]="decode_ablate=96,decode_merge_ablate=8" )
names="base nomerge nothing noq nokv nokv_nothing noq_nothing noq_nokv_nothing"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 1024,4096,16384,131072 --fused-only"
for i in 1 2 3 4; do
  for n in $names; do WGPU_SDPA_TUNE="${V[$n]}" timeout 60 bash .device/on-device.sh .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1; done
  names=$(echo $names | tr ' ' '\n' | tac | tr '\n' ' ')
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s111.tgz s111
cd $o
for n in base nomerge nothing noq nokv nokv_nothing noq_nothing noq_nokv_nothing; do for i in 1 2 3 4; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $n-$i.txt | awk -F, '{printf "%s:%s:%s ", $3, $11, $18}')"; done; done
