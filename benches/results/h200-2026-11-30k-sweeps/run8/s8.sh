set -uo pipefail
# Sweep 8: the decode kernel's lazy rescale (sdpa) against b4e76df (sdpa-old); its check cases
# and tests.
t=/tmp/s8; mkdir -p $t
r="bash .device/on-device.sh"
d="--decode --len 1024,4096,16384,32768,131072"
for i in 1 2; do
  $r .device/sdpa-old bench $d > $t/old$i.txt 2>&1; $r .device/sdpa bench $d > $t/new$i.txt 2>&1
done
$r .device/sdpa check --filter vector > $t/check-vector.txt 2>&1; echo "exit $?" >> $t/check-vector.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/decode-tests.txt 2>&1; echo "exit $?" >> $t/decode-tests.txt
tar -C /tmp -czf $OUT/s8.tgz s8
tail -2 $t/check-vector.txt; grep "test result" $t/decode-tests.txt
cd $t; for f in old* new*; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $18, $19}')"; done
