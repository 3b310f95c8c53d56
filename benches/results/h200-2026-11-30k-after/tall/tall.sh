set -uo pipefail
# The check matrix's new cooperative 128-row block cases (and the portable ones), then all of it.
t=/tmp/tall; mkdir -p $t
r="bash .device/on-device.sh"
$r .device/sdpa check --filter "tall blocks" > $t/check-tall.txt 2>&1; echo "exit $?" >> $t/check-tall.txt
$r .device/sdpa check > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
tar -C /tmp -czf $OUT/tall.tgz tall
grep "tall" $t/check-tall.txt | cut -c1-150; tail -2 $t/check-tall.txt; tail -2 $t/check.txt
