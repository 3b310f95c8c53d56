set -uo pipefail
o=/tmp/s10; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
$run check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
c="--fused-only --dtype f16 --hdim 64,128 --heads 32,8 --len 64,128,256 --kv-len 4096,16384"
$run bench $c --json $o/kvsplit.json > $o/kvsplit.txt 2>&1
WGPU_SDPA_TUNE=coop_kv_splits=1 $run bench $c > $o/nosplit.txt 2>&1
python3 scripts/torch_short_queries.py --dtype float16 --hdim 64 128 --heads 32 8 --q-lens 64 128 256 --kv-lens 4096 16384 > $o/torch.txt 2>&1
$run bench --fused-only --dtype f16 --hdim 64,128 --len 4096 > $o/square.txt 2>&1
tar -C /tmp -czf $OUT/s10.tgz s10
