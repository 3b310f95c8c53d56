set -uo pipefail
# Run 127 (twenty-ninth session): the subgroup decode kernel's scores on cooperative matrices
# (knob decode_ms=1). Run 125's variant failed NVVM compilation (naga typed its fragments by the
# arrays they were loaded from: f32); run 126 passed MSK=0 from the host (its f16 arrays one
# element: wrong results). Probe modes: MSK=2 (K and Q in vec4<f16> slots of 16 rows, 39.5 KB),
# MSK=4 packed (k-step regions whose garbage rows/columns read the next region; MSR k-steps a
# round: 2 -> 24.3 KB, 4 -> 28.4 KB). Registers, correctness (tests/decode.rs, two of its tests,
# with each mode), then the modes interleaved with the default.
o=/tmp/s127; mkdir -p $o /tmp/t127
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t127/decode && chmod +x /tmp/t127/decode
declare -A K=([ms0]="decode_ms=0" [k2]="decode_ms=1,decode_msk=2" [k4r2]="decode_ms=1,decode_msk=4,decode_msr=2" [k4r4]="decode_ms=1,decode_msk=4,decode_msr=4")
for n in ms0 k2 k4r2 k4r4; do
  WGPU_SDPA_TUNE="${K[$n]}" timeout 60 $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $o/stats-$n.txt 2>&1
done
echo "stats at $SECONDS s"
for n in k2 k4r2 k4r4; do
  WGPU_SDPA_TUNE="${K[$n]}" WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 60 $r /tmp/t127/decode --test-threads=1 --nocapture query_and_key masks_causal > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
echo "tests at $SECONDS s"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 1024,4096,16384,32768,131072 --fused-only"
names="ms0 k2 k4r2 k4r4"
for i in 1 2 3 4; do
  for n in $names; do WGPU_SDPA_TUNE="${K[$n]}" timeout 60 $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1; done
  names=$(echo $names | tr ' ' '\n' | tac | tr '\n' ' ')
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s127.tgz s127
cd $o
for n in ms0 k2 k4r2 k4r4; do echo "$n: $(grep -i -E 'Register Count|Shared Memory Size|FAILED' stats-$n.txt | head -2 | awk '{print $1, $2, $3, $4}' | tr '\n' ' ')"; done
for n in k2 k4r2 k4r4; do echo "$n: $(grep 'test result' test-$n.txt) $(tail -1 test-$n.txt)"; grep -E "cases failed" test-$n.txt | head -3; done
for n in ms0 k2 k4r2 k4r4; do for i in 1 2 3 4; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
