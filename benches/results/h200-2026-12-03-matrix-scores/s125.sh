set -uo pipefail
# Run 125 (twenty-ninth session): the subgroup decode kernel's scores on cooperative matrices
# (knob decode_ms=1, wgsl/decode_scores_matrix.wgsl): registers, correctness (sdpa check and
# tests/decode.rs with the knob), then the default and the knob interleaved.
o=/tmp/s125; mkdir -p $o /tmp/t125
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t125/decode && chmod +x /tmp/t125/decode
for m in 0 1; do
  WGPU_SDPA_TUNE="decode_ms=$m" timeout 60 $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $o/stats-ms$m.txt 2>&1
done
echo "stats at $SECONDS s"
WGPU_SDPA_TUNE=decode_ms=1 timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
echo "check at $SECONDS s"
WGPU_SDPA_TUNE=decode_ms=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 120 $r /tmp/t125/decode --test-threads=1 --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "test at $SECONDS s"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 1024,4096,16384,32768,131072 --fused-only"
names="ms0 ms1"
for i in 1 2 3 4; do
  for n in $names; do WGPU_SDPA_TUNE="decode_ms=${n#ms}" timeout 60 $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1; done
  names=$(echo $names | tr ' ' '\n' | tac | tr '\n' ' ')
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s125.tgz s125
cd $o
for m in 0 1; do echo "ms$m: $(grep -i -E 'regist|shared' stats-ms$m.txt | grep -v -i 'spill' | head -6 | tr '\n' ' ')"; done
echo "check: $(tail -3 check.txt | tr '\n' ' ')"
grep -E "FAIL|fail" check.txt | head -10
echo "decode: $(grep 'test result' test-decode.txt) $(tail -1 test-decode.txt)"
grep -E "panicked|cases on the subgroup|FAILED|failed" test-decode.txt | head -12
for n in ms0 ms1; do for i in 1 2 3 4; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
grep -m1 -E 'vector' ms1-1.txt | cut -c1-300
