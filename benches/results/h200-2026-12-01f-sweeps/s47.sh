set -uo pipefail
# Run 47 (eighteenth session). sdpa = partial results in quads, the splits merged in pass by
# default where the teams' outputs are in one part (merges_in_pass_by_default); sdpa-prev =
# 1b11a90 (reduce pass, floats). Knobs: decode_in_pass=0 the reduce pass, decode_merge_parts.
o=/tmp/s47; mkdir -p $o
r="bash .device/on-device.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $r .device/sdpa info; } > $o/info.txt 2>&1
k="--kv-len 4096,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
for i in 1 2; do
  $r .device/sdpa bench $d128 > $o/d128-default-$i.txt 2>&1
  for v in decode_merge_parts=2 decode_merge_parts=1 decode_in_pass=0; do
    WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d128 > $o/d128-$v-$i.txt 2>&1
  done
  $r .device/sdpa-prev bench $d128 > $o/d128-prev-$i.txt 2>&1
done
mha="--dtype f16 --hdim 128 --heads 32,32 --len 1 $k"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 $k"
q2="--dtype f16 --hdim 128 --heads 32,8 --len 2 $k"
f32="--dtype f32 --hdim 128 --heads 32,8 --len 1 $k"
d256="--dtype f16 --hdim 256 --heads 32,8 --len 1 $k"
for s in mha d64 q2 f32; do
  $r .device/sdpa bench ${!s} > $o/$s-default.txt 2>&1
  WGPU_SDPA_TUNE=decode_in_pass=0 $r .device/sdpa bench ${!s} > $o/$s-reduce.txt 2>&1
done
$r .device/sdpa bench $d256 > $o/d256-default.txt 2>&1
WGPU_SDPA_TUNE=decode_in_pass=1 $r .device/sdpa bench $d256 > $o/d256-inpass.txt 2>&1
{ for sh in "--heads 32,8 --q-len 1 --hdim 128 --dtype f16" "--heads 32,8 --q-len 1 --hdim 256 --dtype f16"; do echo "### $sh kv 16384"; $r .device/pipeline_stats --kv-len 16384 $sh; done; } > $o/registers.txt 2>&1
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
$r .device/sdpa bench --dtype f16 --hdim 256 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 > $o/d256-sweep.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 256 --heads 32 8 \
  --lens 4096 16384 65536 131072 > $o/torch-d256.txt 2>&1
tar -C /tmp -czf $OUT/s47.tgz s47
cd $o; tail -2 check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' test-$n.txt) $(tail -1 test-$n.txt)"; done
grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in d128-*.txt mha-*.txt d64-*.txt q2-*.txt f32-*.txt d256-*.txt decode.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
grep -E "^ *[0-9]" torch-decode.txt | awk -F, '{print $3, $11}' | tr '\n' ' '; echo
grep -E "^ *[0-9]" torch-d256.txt | awk -F, '{print $3, $11}' | tr '\n' ' '
