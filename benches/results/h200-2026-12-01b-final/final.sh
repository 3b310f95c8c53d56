set -uo pipefail
# The fourteenth session's final run (decode only): the correctness matrix, the decode and numerics
# test binaries, the decode sweep with the planner's kernels beside PyTorch's decode run, the same
# sweep with the committed tree before this session (6c3da5a, .device/sdpa-old), d64, d256 and f32
# new against old; registers.
o=/tmp/n-final; mkdir -p $o
r="bash .device/on-device.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $r .device/sdpa info; } > $o/info.txt 2>&1
timeout 240 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$r .device/sdpa bench --decode --len $lens --json $o/decode-1.json > $o/decode-1.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
for i in 1 2; do
  $r .device/sdpa bench --decode --len $lens --fused-only > $o/new-$i.txt 2>&1
  $r .device/sdpa-old bench --decode --len $lens --fused-only > $o/old-$i.txt 2>&1
done
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only"
f32="--dtype f32 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only"
d256="--dtype f16 --hdim 256 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only"
q16="--dtype f16 --hdim 128 --heads 32,8 --len 4 --kv-len 4096,16384,65536 --fused-only"
for s in d64 f32 d256 q16; do
  $r .device/sdpa bench ${!s} > $o/$s.txt 2>&1
  $r .device/sdpa-old bench ${!s} > $o/old-$s.txt 2>&1
done
{ for sh in "--q-len 1 --hdim 128 --dtype f16" "--q-len 1 --hdim 64 --dtype f16" "--q-len 1 --hdim 128 --dtype f32" "--q-len 1 --hdim 256 --dtype f16"; do echo "### $sh kv 16384"; $r .device/pipeline_stats --heads 32,8 --kv-len 16384 $sh; done; } > $o/registers.txt 2>&1
tar -C /tmp -czf $OUT/n-final.tgz n-final
tail -2 $o/check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' $o/test-$n.txt) $(tail -1 $o/test-$n.txt)"; done
grep "CS: Register" $o/registers.txt
cd $o; for f in decode-1.txt new-*.txt old-*.txt d64.txt f32.txt d256.txt q16.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s/%s:%s/%s ", $2, $3, $18, $11}')"; done
grep -E "^ *[0-9]" torch-decode.txt | awk -F, '{print $3, $11}' | tr '\n' ' '
