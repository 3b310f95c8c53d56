set -uo pipefail
o=/tmp/s7; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
sh="--fused-only --dtype f16 --heads 32,8 --len 9,16,32,64 --kv-len 4096,16384"
$run bench $sh --hdim 128 > $o/d128-planner.txt 2>&1
$run bench $sh --hdim 128 --blocks 64x32 > $o/d128-64x32.txt 2>&1
$run bench $sh --hdim 128 --blocks 32x32 > $o/d128-32x32.txt 2>&1
$run bench $sh --hdim 64 > $o/d64-planner.txt 2>&1
$run bench $sh --hdim 64 --blocks 32x32 > $o/d64-32x32.txt 2>&1
$run bench $sh --hdim 64 --blocks 16x32 > $o/d64-16x32.txt 2>&1
tar -C /tmp -czf $OUT/s7.tgz s7
cd $o; for f in *.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $2,$3,$11}')"; grep -E '^ *1, ' $f | head -1 | awk -F, '{print "   ", substr($NF,1,90)}'; done
