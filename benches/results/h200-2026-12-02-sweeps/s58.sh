set -uo pipefail
# Run 58 (twentieth session). sdpa = the subgroup kernel's first block loaded before the queries
# are staged under knob decode_early=1 (off by default; each next block loaded at the end of the
# one before), and `decode_ablate=64` (profiling: no query loads); sdpa-prev = 5edb45f's.
o=/tmp/s58; mkdir -p $o
r="bash .device/on-device.sh"
k="--kv-len 256,4096,8192,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 $k"
f32="--dtype f32 --hdim 128 --heads 32,8 --len 1 $k"
q2="--dtype f16 --hdim 128 --heads 32,32 --len 2 $k"
for i in 1 2 3; do
  $r .device/sdpa-prev bench $d128 > $o/prev-d128-$i.txt 2>&1
  $r .device/sdpa bench $d128 > $o/sdpa-d128-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_early=1 $r .device/sdpa bench $d128 > $o/early-d128-$i.txt 2>&1
done
WGPU_SDPA_TUNE=decode_ablate=64 $r .device/sdpa bench $d128 > $o/noq-d128.txt 2>&1
WGPU_SDPA_TUNE=decode_ablate=64,decode_early=1 $r .device/sdpa bench $d128 > $o/noq-early-d128.txt 2>&1
for s in d64 f32 q2; do
  $r .device/sdpa-prev bench ${!s} > $o/prev-$s.txt 2>&1
  WGPU_SDPA_TUNE=decode_early=1 $r .device/sdpa bench ${!s} > $o/early-$s.txt 2>&1
done
{ for v in none decode_early=1; do echo "### $v"; for h in 64 128 256; do WGPU_SDPA_TUNE=$v $r .device/pipeline_stats --kv-len 16384 --heads 32,8 --q-len 1 --hdim $h --dtype f16; done; done; } > $o/registers.txt 2>&1
WGPU_SDPA_TUNE=decode_early=1 timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
WGPU_SDPA_TUNE=decode_early=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/decode --test-threads=1 > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
tar -C /tmp -czf $OUT/s58.tgz s58
cd $o; tail -2 check.txt; echo "decode: $(grep 'test result' test-decode.txt) $(tail -1 test-decode.txt)"
grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in prev*.txt sdpa*.txt early*.txt noq*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
