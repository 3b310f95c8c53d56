set -uo pipefail
o=/tmp/s3; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"; old="$r .device/sdpa-old"
$new check --filter vector > $o/check-vector.txt 2>&1
$new check --filter "kv split" > $o/check-kvsplit.txt 2>&1
for i in 1 2; do
$old bench --decode > $o/decode-old-$i.txt 2>&1
$new bench --decode > $o/decode-new-$i.txt 2>&1
done
sh="--fused-only --dtype f32 --heads 32,8 --len 256,512,1024 --kv-len 4096,16384,65536 --hdim 64,128"
$new bench $sh > $o/f32-chunk-default.txt 2>&1
$new bench $sh --portable > $o/f32-chunk-portable.txt 2>&1
tar -C /tmp -czf $OUT/s3.tgz s3
cd $o; tail -1 check-vector.txt check-kvsplit.txt
for f in decode-*.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s:%s ", $3,$11}')"; done
for f in f32-*.txt; do echo "$f:"; grep -E '^ *1, ' $f | awk -F, '{printf "  %s x %s d%s: %s  %s\n", $2,$3,$4,$11, substr($NF,1,60)}'; done
