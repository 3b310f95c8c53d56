set -uo pipefail
# Run 97: another start of the machine: the committed tree (sdpa0 = 88689aa, `old`) against this
# tree (block_scores / block_pv, `new`), 12 rounds alternating order at d128 32/8 heads; then 4
# rounds each of other decode shapes.
o=/tmp/s97; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
declare -A B=( [old]=.device/sdpa0 [new]=.device/sdpa )
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,8192,16384,32768,131072 --fused-only"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
  if [ $((i % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for n in $order; do timeout 60 $r ${B[$n]} bench $d128 > $o/$n-$i.txt 2>&1; done
done
echo "benches at $SECONDS s"
declare -A S=( [d64]="--dtype f16 --hdim 64 --heads 32,8 --len 1" [f32]="--dtype f32 --hdim 128 --heads 32,8 --len 1" [d256]="--dtype f16 --hdim 256 --heads 32,8 --len 1" [mha4]="--dtype f16 --hdim 128 --heads 32,32 --len 4" [q2]="--dtype f16 --hdim 128 --heads 32,8 --len 2" )
for i in 1 2 3 4; do
  for s in d64 f32 d256 mha4 q2; do
    if [ $((i % 2)) = 1 ]; then order="old new"; else order="new old"; fi
    for n in $order; do timeout 60 $r ${B[$n]} bench ${S[$s]} --kv-len 4096,16384,65536 --fused-only > $o/$s-$n-$i.txt 2>&1; done
  done
done
echo "shapes at $SECONDS s"
tar -C /tmp -czf $OUT/s97.tgz s97
cd $o
for n in old new; do for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
for s in d64 f32 d256 mha4 q2; do for n in old new; do for i in 1 2 3 4; do echo "$s-$n-$i: $(grep -E '^ *[0-9]+, ' $s-$n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done; done
