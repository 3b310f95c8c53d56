set -uo pipefail
# Run 117 (twenty-seventh session): tests/tuned_variants.rs with its vearly knob set turning the
# subgroup and cooperative-matrix decode kernels off (decode_sg=0, decode_coop=0; run 116 had only the first).
o=/tmp/s117; mkdir -p $o
SECONDS=0
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 300 bash .device/on-device.sh .device/t/tuned_variants --nocapture > $o/test-tuned_variants.txt 2>&1; echo "exit $?" >> $o/test-tuned_variants.txt
echo "tuned_variants: $(grep 'test result' $o/test-tuned_variants.txt | tail -1) $(tail -1 $o/test-tuned_variants.txt) at $SECONDS s"
tar -C /tmp -czf $OUT/s117.tgz s117
WGPU_SDPA_TUNED_CHILD=1 WGPU_SDPA_TUNE="portable_prefetch=16,portable_fill=128,decode_vearly=1,decode_sg=0,decode_coop=0" WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 bash .device/on-device.sh .device/t/tuned_variants --exact child_runs_the_matrix --nocapture > $o/child-vearly.txt 2>&1; echo "exit $?" >> $o/child-vearly.txt
echo "child vearly: $(grep -E 'tile ahead|cases passed|test result' $o/child-vearly.txt | tr '\n' ' ') $(tail -1 $o/child-vearly.txt)"
tar -C /tmp -czf $OUT/s117.tgz s117
