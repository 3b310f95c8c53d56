set -uo pipefail
o=/tmp/s8; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"; old="$r .device/sdpa-old"
$new check > $o/check.txt 2>&1
sh="--fused-only --dtype f16 --len 4096 --hdim 64,80,128"
$old bench $sh > $o/old.txt 2>&1
$new bench $sh > $o/new.txt 2>&1
WGPU_SDPA_TUNE=coop_pipe=1 $new bench $sh > $o/new-pipe1.txt 2>&1
$old bench $sh --mask causal > $o/old-causal.txt 2>&1
$new bench $sh --mask causal > $o/new-causal.txt 2>&1
$new bench $sh --portable > $o/new-portable.txt 2>&1
$old bench --fused-only --dtype f32 --len 4096 --hdim 64,128 > $o/old-f32.txt 2>&1
$new bench --fused-only --dtype f32 --len 4096 --hdim 64,128 > $o/new-f32.txt 2>&1
cq="--fused-only --dtype f16 --heads 32,8 --len 64,128,512 --kv-len 16384 --hdim 64,128"
$old bench $cq > $o/old-chunk.txt 2>&1
$new bench $cq > $o/new-chunk.txt 2>&1
tar -C /tmp -czf $OUT/s8.tgz s8
cd $o; tail -1 check.txt; grep -v PASS check.txt | grep -v "^case\|^crit\|passed" | head
for f in *.txt; do [ $f = check.txt ] || echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $2,$4,$11}')"; done
