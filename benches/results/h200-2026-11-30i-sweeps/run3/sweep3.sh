set -uo pipefail
o=/tmp/s3; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"; old="$r .device/sdpa-old"
sh="--fused-only --dtype f16 --len 4096"
$new check --filter coop > $o/check-coop.txt 2>&1
for v in old new; do
  bin="$r .device/sdpa"; [ $v = old ] && bin="$r .device/sdpa-old"
  $bin bench $sh --hdim 32,48,64,80,128 > $o/$v-f16.txt 2>&1
  $bin bench $sh --hdim 64,128 --mask causal > $o/$v-causal.txt 2>&1
  $bin bench $sh --hdim 64,128 --heads 32,8 > $o/$v-gqa.txt 2>&1
  $bin bench --fused-only --dtype f32 --len 4096 --hdim 64,80,128 > $o/$v-f32.txt 2>&1
  $bin bench --fused-only --no-decode --dtype f16,f32 --hdim 64,128 --heads 32,8 --len 64,128,256,512 --kv-len 4096,16384 > $o/$v-short.txt 2>&1
done
tar -C /tmp -czf $OUT/s3.tgz s3
