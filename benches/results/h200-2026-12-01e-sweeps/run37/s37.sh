set -uo pipefail
# Run 37: the splits merged in the split pass (243ed3b, default) against the reduce pass
# (decode_in_pass=0) and the tree before this session's work (420b418, .device/sdpa-old);
# check, decode and numerics tests; the decode sweep with PyTorch's; other shapes; registers.
o=/tmp/s37; mkdir -p $o
r="bash .device/on-device.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $r .device/sdpa info; } > $o/info.txt 2>&1
timeout 240 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/$n --test-threads=1 --nocapture > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$r .device/sdpa bench --decode --len $lens --json $o/decode-1.json > $o/decode-1.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
for i in 1 2; do
  $r .device/sdpa bench --decode --len $lens --fused-only > $o/new-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_in_pass=0 $r .device/sdpa bench --decode --len $lens --fused-only > $o/pass-$i.txt 2>&1
  $r .device/sdpa-old bench --decode --len $lens --fused-only > $o/old-$i.txt 2>&1
done
kv="--kv-len 4096,16384,65536,131072 --fused-only"
d256="--dtype f16 --hdim 256 --heads 32,8 --len 1 $kv"
d256q2="--dtype f16 --hdim 256 --heads 32,8 --len 2 $kv"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 $kv"
f32="--dtype f32 --hdim 128 --heads 32,8 --len 1 $kv"
q2="--dtype f16 --hdim 128 --heads 32,8 --len 2 $kv"
q4="--dtype f16 --hdim 128 --heads 32,8 --len 4 $kv"
mha="--dtype f16 --hdim 128 --heads 32,32 --len 1 $kv"
b4="--dtype f16 --hdim 128 --heads 32,8 --len 1 --batch 4 $kv"
for s in d256 d256q2 d64 f32 q2 q4 mha b4; do
  $r .device/sdpa bench ${!s} > $o/x-$s.txt 2>&1
  $r .device/sdpa-old bench ${!s} > $o/x-old-$s.txt 2>&1
done
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 256 --heads 32 8 \
  --lens 4096 16384 65536 131072 > $o/torch-d256.txt 2>&1
{ for sh in "--heads 32,8 --q-len 1 --hdim 128 --dtype f16" "--heads 32,8 --q-len 1 --hdim 256 --dtype f16"; do echo "### $sh kv 16384"; $r .device/pipeline_stats --kv-len 16384 $sh; done; } > $o/registers.txt 2>&1
tar -C /tmp -czf $OUT/s37.tgz s37
cd $o; tail -2 check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' test-$n.txt) $(tail -1 test-$n.txt)"; done
grep -h "cases on the subgroup\|SKIPPED" test-decode.txt | head -5
grep "CS: Register" registers.txt
for f in decode-1.txt new-*.txt pass-*.txt old-*.txt x-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
grep -E "^ *[0-9]" torch-decode.txt | awk -F, '{print $3, $11}' | tr '\n' ' '; echo
grep -E "^ *[0-9]" torch-d256.txt | awk -F, '{print $3, $11}' | tr '\n' ' '
