set -uo pipefail
t=/tmp/after-tests; mkdir -p $t
bash .device/on-device.sh .device/sdpa check > $t/check.txt 2>&1; echo "check exit $?" >> $t/check.txt
for n in numerics decode correctness concurrency limits tuned_variants; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 bash .device/on-device.sh .device/t/$n --test-threads=1 > $t/$n.txt 2>&1; echo "exit $?" >> $t/$n.txt
done
tar -C /tmp -czf $OUT/after-tests.tgz after-tests
tail -2 $t/check.txt
for n in numerics decode correctness concurrency limits tuned_variants; do echo "$n: $(grep 'test result' $t/$n.txt)"; done
