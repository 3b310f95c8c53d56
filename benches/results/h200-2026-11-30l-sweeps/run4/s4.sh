set -uo pipefail
# Sweep 4: the decode kernel on cooperative matrices (wgsl/vector_coop.wgsl, the default for f16
# where it serves) against the f32 vector kernel (knob decode_coop=0), splits aimed at 264, 528
# and 1056 workgroups; its check cases and tests/decode.rs first.
t=/tmp/s4; mkdir -p $t
r="bash .device/on-device.sh"
$r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/decode-tests.txt 2>&1; echo "exit $?" >> $t/decode-tests.txt
d="--decode --len 256,4096,16384,32768,131072"
ks="decode_coop=0 none decode_wgs=528 decode_wgs=1056"
for k in $ks; do
  WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $t/ps-$k.txt 2>&1
done
for i in 1 2; do
  for k in $ks; do WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1; done
done
tar -C /tmp -czf $OUT/s4.tgz s4
tail -3 $t/check.txt; grep -E "test result|FAIL|panic" $t/decode-tests.txt | head; tail -1 $t/decode-tests.txt
cd $t; for f in ps-*; do echo "$f: $(grep -i -E 'regist|plan' $f | head -2 | tr '\n' ' ' | cut -c1-250)"; done
for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $18, $19}')"; done
