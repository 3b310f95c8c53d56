set -uo pipefail
o=/tmp/s4; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
sh="--hdim 64,128 --heads 32,8 --len 33,64,128,192 --kv-len 4096,16384"
for b in 64x64 64x32 32x64 64x128 128x64; do
  $run bench --fused-only --dtype f32 $sh --blocks $b > $o/f32-$b.txt 2>&1
  $run bench --fused-only --portable --dtype f16 $sh --blocks $b > $o/f16p-$b.txt 2>&1
done
WGPU_SDPA_TUNE=portable_kv_splits=16 $run bench --fused-only --dtype f32 $sh --blocks 64x64 > $o/f32-64x64-s16.txt 2>&1
tar -C /tmp -czf $OUT/s4.tgz s4
cd $o; for f in *.txt; do echo "== $f"; grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s/%s:%s ", $2, $4, $3, $11}'; echo; done
