set -uo pipefail
# Run 115 (twenty-seventh session): the test binaries not run on the H200 since the tenth
# session (tests/correctness.rs, concurrency.rs, limits.rs, tuned_variants.rs) and `sdpa info`,
# on the final tree 22e3e99.
o=/tmp/s115; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
timeout 60 $r .device/sdpa info > $o/info.txt 2>&1; echo "exit $?" >> $o/info.txt
for t in limits tuned_variants concurrency correctness; do
  lim=120; [ $t = correctness ] && lim=300
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout $lim $r .device/t/$t --nocapture > $o/test-$t.txt 2>&1; echo "exit $?" >> $o/test-$t.txt
  echo "$t: $(grep 'test result' $o/test-$t.txt) $(tail -1 $o/test-$t.txt) at $SECONDS s"
done
tar -C /tmp -czf $OUT/s115.tgz s115
grep -h -c "SKIPPED" $o/test-*.txt | tr '\n' ' '; echo
head -30 $o/info.txt
