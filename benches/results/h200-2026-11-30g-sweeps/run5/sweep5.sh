set -uo pipefail
o=/tmp/s5; mkdir -p $o
new="bash .device/on-device.sh .device/sdpa"
old="bash .device/on-device.sh .device/sdpa-old"
for i in 1 2; do
  for b in old new; do
    r=${!b}
    $r bench --fused-only --dtype f16 --hdim 64,128 --len 4096 > $o/coop-$b-$i.txt 2>&1
    $r bench --fused-only --dtype f16 --hdim 64,128 --heads 32,8 --len 64,128 --kv-len 16384 > $o/coopkv-$b-$i.txt 2>&1
    $r bench --fused-only --portable --dtype f32,f16 --hdim 64,128 --len 4096 > $o/portable-$b-$i.txt 2>&1
    $r bench --fused-only --dtype f32 --hdim 64,128 --heads 32,8 --len 64,128 --kv-len 16384 > $o/portkv-$b-$i.txt 2>&1
  done
done
# The f32 short-query rule: the decode kernel (planner) against the portable kernel with split keys.
sq="--dtype f32 --hdim 64,128 --len 9,12,16,20,24,28,32 --kv-len 512,1024,4096,16384"
$new bench $sq --heads 32,8 > $o/rule-decode-gqa.txt 2>&1
$new bench $sq --heads 32,8 --no-decode --fused-only > $o/rule-fused-gqa.txt 2>&1
$new bench $sq --heads 32,32 > $o/rule-decode-mha.txt 2>&1
$new bench $sq --heads 32,32 --no-decode --fused-only > $o/rule-fused-mha.txt 2>&1
$new check > $o/check.txt 2>&1
tar -C /tmp -czf $OUT/s5.tgz s5
cd $o; for f in coop-* coopkv-* portable-* portkv-*; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s/%s:%s ", $8,$4,$3,$11}')"; done; tail -1 check.txt
