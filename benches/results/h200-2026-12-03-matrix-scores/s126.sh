set -uo pipefail
# Run 126 (twenty-ninth session): run 125's variant failed NVVM compilation (naga typed its
# fragments by the arrays they were loaded from: f32). Now K and Q in vec4<f16> arrays (knob
# decode_ms=1, probe mode MSK=2, 39.5 KB of workgroup memory): registers, correctness (sdpa check
# and tests/decode.rs with the knob), then the default and the knob interleaved.
o=/tmp/s126; mkdir -p $o /tmp/t126
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t126/decode && chmod +x /tmp/t126/decode
for m in 0 1; do
  WGPU_SDPA_TUNE="decode_ms=$m" timeout 60 $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $o/stats-ms$m.txt 2>&1
done
echo "stats at $SECONDS s"
if grep -q "FAILED" $o/stats-ms1.txt; then echo "ms1 did not compile"; grep -B2 FAILED $o/stats-ms1.txt; tar -C /tmp -czf $OUT/s126.tgz s126; exit 1; fi
WGPU_SDPA_TUNE=decode_ms=1 timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
echo "check at $SECONDS s"
WGPU_SDPA_TUNE=decode_ms=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 120 $r /tmp/t126/decode --test-threads=1 --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "test at $SECONDS s"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 1024,4096,16384,32768,131072 --fused-only"
names="ms0 ms1"
for i in 1 2 3 4; do
  for n in $names; do WGPU_SDPA_TUNE="decode_ms=${n#ms}" timeout 60 $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1; done
  names=$(echo $names | tr ' ' '\n' | tac | tr '\n' ' ')
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s126.tgz s126
cd $o
for m in 0 1; do echo "ms$m: $(grep -i -E 'Register Count|Shared Memory Size' stats-ms$m.txt | head -2 | awk '{print $1, $2, $3, $4}' | tr '\n' ' ')"; done
echo "check: $(tail -3 check.txt | tr '\n' ' ')"
grep -E "FAIL|ERROR" check.txt | head -10 | cut -c1-200
echo "decode: $(grep 'test result' test-decode.txt) $(tail -1 test-decode.txt)"
grep -E "panicked|cases on the subgroup|cases failed" test-decode.txt | head -12
for n in ms0 ms1; do for i in 1 2 3 4; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
