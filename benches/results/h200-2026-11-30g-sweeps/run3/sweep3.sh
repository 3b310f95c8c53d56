set -uo pipefail
o=/tmp/s3; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
sh="--hdim 64,128 --heads 32,8 --len 33,64,128,192 --kv-len 2048,4096,16384"
$run bench --fused-only --dtype f32 $sh > $o/f32-split.txt 2>&1
WGPU_SDPA_TUNE=portable_kv_splits=1 $run bench --fused-only --dtype f32 $sh > $o/f32-nosplit.txt 2>&1
$run bench --fused-only --portable --dtype f16 $sh > $o/f16p-split.txt 2>&1
WGPU_SDPA_TUNE=portable_kv_splits=1 $run bench --fused-only --portable --dtype f16 $sh > $o/f16p-nosplit.txt 2>&1
$run bench --dtype f32 --hdim 64,128 --heads 32,8 --len 33,64,128,192 --kv-len 512,1024 > $o/f32-short-caches.txt 2>&1
python3 .device/torch_short_queries.py --dtype float32 float16 --hdim 64 128 --heads 32 8 --q-lens 33 64 128 192 --kv-lens 2048 4096 16384 > $o/torch.txt 2>&1
bash .device/on-device.sh .device/pipeline_stats --heads 32,8 --q-len 64 --kv-len 16384 --hdim 128 --dtype f32 > $o/stats.txt 2>&1
$run check > $o/check.txt 2>&1
tar -C /tmp -czf $OUT/s3.tgz s3
cd $o; for f in f32-split f32-nosplit f16p-split f16p-nosplit f32-short-caches; do echo "== $f"; grep -E '^ *1, ' $f.txt | awk -F, '{printf "%s %s d%s kv%s: %s %s\n", $2, $8, $4, $3, $10, $11}'; done; tail -3 check.txt; grep -c PASS check.txt; grep -i fail check.txt | head
