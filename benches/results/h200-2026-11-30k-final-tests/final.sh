set -uo pipefail
o=/tmp/final; mkdir -p $o
bash scripts/h200_bench.sh $o
tar -C /tmp -czf $OUT/final.tgz final
t=/tmp/final-tests; mkdir -p $t
for n in numerics decode correctness concurrency limits tuned_variants; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 bash .device/on-device.sh .device/t/$n --test-threads=1 > $t/$n.txt 2>&1; echo "exit $?" >> $t/$n.txt
done
tar -C /tmp -czf $OUT/final-tests.tgz final-tests
tail -2 $o/check.txt
for n in numerics decode correctness concurrency limits tuned_variants; do echo "$n: $(grep 'test result' $t/$n.txt)"; done
