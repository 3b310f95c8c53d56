set -uo pipefail
o=/tmp/s4; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"; old="$r .device/sdpa-old"
$new check > $o/check.txt 2>&1
sh="--fused-only --dtype f32 --heads 32,8 --len 64,128,256,512,1024 --kv-len 4096,16384,65536 --hdim 64,128"
$new bench $sh > $o/f32-chunk-new.txt 2>&1
WGPU_SDPA_TUNE=split_min_q=32 $new bench $sh > $o/f32-chunk-coop.txt 2>&1
$old bench $sh > $o/f32-chunk-old.txt 2>&1
sq="--fused-only --dtype f32 --len 4096 --hdim 64,80,128"
$old bench $sq > $o/f32-square-old.txt 2>&1
$new bench $sq > $o/f32-square-new.txt 2>&1
tar -C /tmp -czf $OUT/s4.tgz s4
cd $o; grep -c PASS check.txt; grep -v PASS check.txt | tail -3
for f in f32-square-*.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s:%s ", $4,$11}')"; done
paste -d' ' <(grep -E '^ *1, ' f32-chunk-old.txt | awk -F, '{printf "%s x %s d%s old %s\n", $2,$3,$4,$11}') <(grep -E '^ *1, ' f32-chunk-new.txt | awk -F, '{printf "new %s %s\n", $11, substr($NF,1,40)}') <(grep -E '^ *1, ' f32-chunk-coop.txt | awk -F, '{printf "coop %s %s\n", $11, substr($NF,1,50)}')
