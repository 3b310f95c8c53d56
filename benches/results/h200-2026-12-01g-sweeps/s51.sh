set -uo pipefail
# Run 51 (nineteenth session). sdpa = the in-pass merge's threads of a column quad meeting by
# subgroup shuffles (no workgroup memory, no barrier) and no third fence (MERGE_ABLATE 16 puts
# it back); sdpa-prev = c41cdb0 + MERGE_ABLATE 32 (run 50's binary: o_s, third fence; 16 drops it).
o=/tmp/s51; mkdir -p $o
r="bash .device/on-device.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $r .device/sdpa info; } > $o/info.txt 2>&1
k="--kv-len 4096,8192,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
mha="--dtype f16 --hdim 128 --heads 32,32 --len 1 $k"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 $k"
q2="--dtype f16 --hdim 128 --heads 32,8 --len 2 $k"
f32="--dtype f32 --hdim 128 --heads 32,8 --len 1 $k"
for i in 1 2 3; do
  for b in sdpa sdpa-prev; do for v in none decode_merge_ablate=16; do
    WGPU_SDPA_TUNE=$v $r .device/$b bench $d128 > $o/$b-d128-$v-$i.txt 2>&1
  done; done
done
WGPU_SDPA_TUNE=decode_merge_ablate=32 $r .device/sdpa bench $d128 > $o/sdpa-d128-ablate32.txt 2>&1
for b in sdpa sdpa-prev; do for s in mha d64 q2 f32; do
  $r .device/$b bench ${!s} > $o/$b-$s.txt 2>&1
done; done
{ for sh in "--heads 32,8 --q-len 1 --hdim 128 --dtype f16" "--heads 32,8 --q-len 1 --hdim 64 --dtype f16"; do echo "### $sh kv 16384"; $r .device/pipeline_stats --kv-len 16384 $sh; done; } > $o/registers.txt 2>&1
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
tar -C /tmp -czf $OUT/s51.tgz s51
cd $o; tail -2 check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' test-$n.txt) $(tail -1 test-$n.txt)"; done
grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in sdpa*.txt decode.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
grep -E "^ *[0-9]" torch-decode.txt | awk -F, '{print $3, $11}' | tr '\n' ' '; echo
