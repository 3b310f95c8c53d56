set -uo pipefail
# Run 57 (twentieth session). sdpa = the split rows packed as f16 for the in-pass merge under
# knob decode_pack=1 (off by default), `partial` bound as vec4<u32>; sdpa-prev = 5edb45f's.
o=/tmp/s57; mkdir -p $o
r="bash .device/on-device.sh"
k="--kv-len 4096,8192,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 $k"
q2="--dtype f16 --hdim 128 --heads 32,32 --len 2 $k"
for i in 1 2 3; do
  $r .device/sdpa-prev bench $d128 > $o/prev-d128-$i.txt 2>&1
  $r .device/sdpa bench $d128 > $o/sdpa-d128-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_pack=1 $r .device/sdpa bench $d128 > $o/pack-d128-$i.txt 2>&1
done
$r .device/sdpa-prev bench $d64 > $o/prev-d64.txt 2>&1
WGPU_SDPA_TUNE=decode_pack=1 $r .device/sdpa bench $d64 > $o/pack-d64.txt 2>&1
$r .device/sdpa-prev bench $q2 > $o/prev-q2.txt 2>&1
WGPU_SDPA_TUNE=decode_pack=1 $r .device/sdpa bench $q2 > $o/pack-q2.txt 2>&1
{ for v in none decode_pack=1; do echo "### $v"; WGPU_SDPA_TUNE=$v $r .device/pipeline_stats --kv-len 16384 --heads 32,8 --q-len 1 --hdim 128 --dtype f16; done; } > $o/registers.txt 2>&1
WGPU_SDPA_TUNE=decode_pack=1 timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
WGPU_SDPA_TUNE=decode_pack=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/decode --test-threads=1 > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
tar -C /tmp -czf $OUT/s57.tgz s57
cd $o; tail -2 check.txt; echo "decode: $(grep 'test result' test-decode.txt) $(tail -1 test-decode.txt)"
grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in prev*.txt sdpa*.txt pack*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
