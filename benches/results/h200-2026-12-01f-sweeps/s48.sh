set -uo pipefail
# Run 48 (eighteenth session). sdpa = groups of 4 consecutive splits in the in-pass merge and the
# reduce pass, two splits' (max, sum) pairs a quad (wgsl/partial_layout.wgsl: pairs padded to an
# even count a query vector); sdpa-prev = 499c341 (strided splits, a quad load per pair).
o=/tmp/s48; mkdir -p $o
r="bash .device/on-device.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $r .device/sdpa info; } > $o/info.txt 2>&1
k="--kv-len 4096,8192,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
mha="--dtype f16 --hdim 128 --heads 32,32 --len 1 $k"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 $k"
d256="--dtype f16 --hdim 256 --heads 32,8 --len 1 $k"
for i in 1 2 3; do for b in sdpa sdpa-prev; do
  $r .device/$b bench $d128 > $o/$b-d128-$i.txt 2>&1
done; done
for i in 1 2; do for b in sdpa sdpa-prev; do
  WGPU_SDPA_TUNE=decode_in_pass=0 $r .device/$b bench $d128 > $o/$b-d128-reduce-$i.txt 2>&1
done; done
for b in sdpa sdpa-prev; do for s in mha d64 d256; do
  $r .device/$b bench ${!s} > $o/$b-$s.txt 2>&1
done; WGPU_SDPA_TUNE=decode_in_pass=1 $r .device/$b bench $d256 > $o/$b-d256-inpass.txt 2>&1; done
{ for sh in "--heads 32,8 --q-len 1 --hdim 128 --dtype f16" "--heads 32,8 --q-len 1 --hdim 256 --dtype f16"; do echo "### $sh kv 16384"; $r .device/pipeline_stats --kv-len 16384 $sh; done; } > $o/registers.txt 2>&1
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
tar -C /tmp -czf $OUT/s48.tgz s48
cd $o; tail -2 check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' test-$n.txt) $(tail -1 test-$n.txt)"; done
grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in sdpa*.txt decode.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
grep -E "^ *[0-9]" torch-decode.txt | awk -F, '{print $3, $11}' | tr '\n' ' '; echo
