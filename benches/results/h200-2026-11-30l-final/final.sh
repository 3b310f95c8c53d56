set -uo pipefail
# The eleventh session's final run (decode only: no other kernel changed): the correctness
# matrix, the decode and numerics test binaries, the decode sweep with the planner's kernels
# (cooperative matrices up to 4096 keys) beside the f32 vector kernel everywhere
# (decode_coop=0) and cooperative matrices everywhere (decode_coop=1), PyTorch's decode run,
# d64 rows, registers.
o=/tmp/l-final; mkdir -p $o
r="bash .device/on-device.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $r .device/sdpa info; } > $o/info.txt 2>&1
timeout 240 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
WGPU_SDPA_TUNE=decode_coop=0 $r .device/sdpa bench --decode --len $lens --json $o/decode-vector.json > $o/decode-vector.txt 2>&1
WGPU_SDPA_TUNE=decode_coop=1 $r .device/sdpa bench --decode --len $lens --json $o/decode-matrix.json > $o/decode-matrix.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 --kv-len 1024,4096,16384 --fused-only"
$r .device/sdpa bench $d64 > $o/d64.txt 2>&1
WGPU_SDPA_TUNE=decode_coop=0 $r .device/sdpa bench $d64 > $o/d64-vector.txt 2>&1
{ for kv in 4096 16384; do echo "### kv $kv"; $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len $kv --hdim 128 --dtype f16; done; } > $o/registers.txt 2>&1
tar -C /tmp -czf $OUT/l-final.tgz l-final
tail -2 $o/check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' $o/test-$n.txt) $(tail -1 $o/test-$n.txt)"; done
cd $o; for f in decode*.txt d64*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $18, $11}')"; done
grep -E "^ *[0-9]" torch-decode.txt | head -12
