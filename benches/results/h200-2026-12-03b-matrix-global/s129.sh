set -uo pipefail
# Run 129 (thirtieth session): the subgroup decode kernel's scores on cooperative matrices with
# K's fragments loaded straight from storage through an f16 alias of K's binding (knob
# decode_ms=1; no staging, no conversions). Registers, correctness (sdpa check, tests/decode.rs
# with the knob), then the knob interleaved with the default.
o=/tmp/s129; mkdir -p $o /tmp/t129
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t129/decode && chmod +x /tmp/t129/decode
declare -A K=([ms0]="decode_ms=0" [ms1]="decode_ms=1")
for n in ms0 ms1; do
  WGPU_SDPA_TUNE="${K[$n]}" timeout 60 $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $o/stats-$n.txt 2>&1
done
echo "stats at $SECONDS s"
WGPU_SDPA_TUNE=decode_ms=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 120 $r /tmp/t129/decode --test-threads=1 --nocapture > $o/test-ms1.txt 2>&1; echo "exit $?" >> $o/test-ms1.txt
WGPU_SDPA_TUNE=decode_ms=1 timeout 120 $r .device/sdpa check > $o/check-ms1.txt 2>&1; echo "exit $?" >> $o/check-ms1.txt
echo "tests at $SECONDS s"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 1024,4096,16384,32768,131072 --fused-only"
names="ms0 ms1"
for i in 1 2 3 4; do
  for n in $names; do WGPU_SDPA_TUNE="${K[$n]}" timeout 60 $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1; done
  names=$(echo $names | tr ' ' '\n' | tac | tr '\n' ' ')
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s129.tgz s129
cd $o
for n in ms0 ms1; do echo "$n: $(grep -i -E 'Register Count|Shared Memory Size|FAILED|rror' stats-$n.txt | head -3 | awk '{print $1, $2, $3, $4, $5}' | tr '\n' ' ')"; done
echo "tests: $(grep 'test result' test-ms1.txt) $(tail -1 test-ms1.txt)"; grep -E "cases failed|panicked|FAILED" test-ms1.txt | head -8
echo "check: $(tail -3 check-ms1.txt | tr '\n' ' ')"; grep -i "fail" check-ms1.txt | head -8
for n in ms0 ms1; do for i in 1 2 3 4; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
grep -E "plan|matrix" ms1-1.txt | head -3
