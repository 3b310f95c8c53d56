set -uo pipefail
# The twelfth session's final run (decode only): the correctness matrix, the decode and numerics
# test binaries, the decode sweep with the planner's kernels beside the f32-math decode kernel
# everywhere (decode_coop=0), this session's start (ab7899f, .device/sdpa-old) on the same rows,
# PyTorch's decode run; d64, f32, and 2-8 query rows (8-32 query vectors a workgroup) old
# against new; registers.
o=/tmp/m-final; mkdir -p $o
r="bash .device/on-device.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $r .device/sdpa info; } > $o/info.txt 2>&1
timeout 240 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
for i in 1 2; do
  $r .device/sdpa bench --decode --len $lens --json $o/decode-$i.json > $o/decode-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_coop=0 $r .device/sdpa bench --decode --len $lens --json $o/decode-vector-$i.json > $o/decode-vector-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_coop=0 $r .device/sdpa-old bench --decode --len $lens --json $o/old-decode-vector-$i.json > $o/old-decode-vector-$i.txt 2>&1
done
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only"
f32="--dtype f32 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only"
q="--dtype f16 --hdim 128 --heads 32,8 --len 2,4,8 --kv-len 4096,16384 --fused-only"
for s in d64 f32 q; do
  WGPU_SDPA_TUNE=decode_coop=0 $r .device/sdpa bench ${!s} > $o/$s.txt 2>&1
  WGPU_SDPA_TUNE=decode_coop=0 $r .device/sdpa-old bench ${!s} > $o/old-$s.txt 2>&1
done
{ for sh in "--q-len 1 --hdim 128 --dtype f16" "--q-len 1 --hdim 64 --dtype f16" "--q-len 1 --hdim 128 --dtype f32" "--q-len 8 --hdim 128 --dtype f16"; do echo "### $sh kv 16384 (decode_coop=0)"; WGPU_SDPA_TUNE=decode_coop=0 $r .device/pipeline_stats --heads 32,8 --kv-len 16384 $sh; done; } > $o/registers.txt 2>&1
tar -C /tmp -czf $OUT/m-final.tgz m-final
tail -2 $o/check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' $o/test-$n.txt) $(tail -1 $o/test-$n.txt)"; done
grep "CS: Register" $o/registers.txt
cd $o; for f in decode*.txt old-*.txt d64.txt f32.txt q.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s/%s:%s/%s ", $2, $3, $18, $11}')"; done
grep -E "^ *[0-9]" torch-decode.txt | awk -F, '{print $3, $11}' | tr '\n' ' '
