set -uo pipefail
o=/tmp/s8; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
for i in 1 2; do
  $run bench --fused-only --dtype f16 --hdim 80,128 --len 32,64 > $o/square-new-$i.txt 2>&1
  $run bench --fused-only --dtype f16 --hdim 80,128 --len 32,64 --blocks 128x32 > $o/square-old-$i.txt 2>&1
done
sh="--fused-only --dtype f16 --heads 32,8 --hdim 80,128 --len 9,16,32,64 --kv-len 512,4096,16384"
$run bench $sh > $o/short-new.txt 2>&1
$run bench $sh --blocks 128x32 > $o/short-old.txt 2>&1
$run check > $o/check.txt 2>&1
tar -C /tmp -czf $OUT/s8.tgz s8
cd $o; for f in *.txt; do [ $f = check.txt ] && continue; echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s/%s:%s ", $4,$2,$3,$11}')"; done; tail -1 check.txt
