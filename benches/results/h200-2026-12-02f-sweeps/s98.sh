set -uo pipefail
# Run 98: a fresh start of the machine (given back after run 97): the committed tree (sdpa0 = 88689aa, `old`) against this
# tree (block_scores / block_pv, `new`), 16 rounds alternating order at d128 32/8 heads.
o=/tmp/s98; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
declare -A B=( [old]=.device/sdpa0 [new]=.device/sdpa )
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,8192,16384,32768,131072 --fused-only"
for i in $(seq 1 16); do
  if [ $((i % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for n in $order; do timeout 60 $r ${B[$n]} bench $d128 > $o/$n-$i.txt 2>&1; done
done
echo "benches at $SECONDS s"
tar -C /tmp -czf $OUT/s98.tgz s98
cd $o
for n in old new; do for i in $(seq 1 16); do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
