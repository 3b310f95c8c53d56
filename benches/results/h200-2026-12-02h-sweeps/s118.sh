set -uo pipefail
# Run 118 (twenty-seventh session): the other GPU test binaries (tests/bad_input.rs,
# embedding.rs, fuzz_desc.rs, gpu_errors.rs, resources.rs) on the H200, a170584.
o=/tmp/s118; mkdir -p $o
SECONDS=0
mkdir -p /tmp/t118 && for f in .device/t/*.gz; do gunzip -c $f > /tmp/t118/$(basename $f .gz); chmod +x /tmp/t118/$(basename $f .gz); done
for t in bad_input resources gpu_errors embedding fuzz_desc; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 bash .device/on-device.sh /tmp/t118/$t --nocapture > $o/test-$t.txt 2>&1; echo "exit $?" >> $o/test-$t.txt
  echo "$t: $(grep 'test result' $o/test-$t.txt | tail -1) $(tail -1 $o/test-$t.txt) at $SECONDS s"
done
grep -h "SKIPPED" $o/*.txt | sort | uniq -c | head -20
tar -C /tmp -czf $OUT/s118.tgz s118
