set -uo pipefail
# Run 55 (nineteenth session). sdpa = the subgroup kernel reading one word of each chunk of its
# first block before staging the queries (WARM, knob decode_warm=0 turns it off); sdpa-prev =
# the committed kernels (run 52's sdpa). Results straight under $OUT (a time limit keeps them).
o=$OUT/s55; mkdir -p $o   # (the files past the tool's count limit did not come back: s55/summary.txt)
r="bash .device/on-device.sh"
k="--kv-len 256,4096,8192,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 $k"
d256="--dtype f16 --hdim 256 --heads 32,8 --len 1 $k"
f32="--dtype f32 --hdim 128 --heads 32,8 --len 1 $k"
for i in 1 2 3; do
  $r .device/sdpa bench $d128 > $o/sdpa-d128-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_warm=0 $r .device/sdpa bench $d128 > $o/nowarm-d128-$i.txt 2>&1
  $r .device/sdpa-prev bench $d128 > $o/prev-d128-$i.txt 2>&1
done
$r .device/pipeline_stats --kv-len 16384 --heads 32,8 --q-len 1 --hdim 128 --dtype f16 > $o/registers.txt 2>&1
timeout 100 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 100 $r .device/t/decode --test-threads=1 > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
for s in d64 d256 f32; do
  $r .device/sdpa bench ${!s} > $o/sdpa-$s.txt 2>&1
  WGPU_SDPA_TUNE=decode_warm=0 $r .device/sdpa bench ${!s} > $o/nowarm-$s.txt 2>&1
done
cd $o; tail -2 check.txt; echo "decode: $(grep 'test result' test-decode.txt) $(tail -1 test-decode.txt)"
grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in sdpa*.txt nowarm*.txt prev*.txt decode.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
grep -E "^ *[0-9]" torch-decode.txt | awk -F, '{print $3, $11}' | tr '\n' ' '; echo
