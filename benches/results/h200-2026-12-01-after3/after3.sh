set -uo pipefail
# After the review's refactor (decode kernels share store(); the reduce pass's load_part inlines its select): correctness and the decode sweep.
o=/tmp/n-after3; mkdir -p $o
r="bash .device/on-device.sh"
timeout 240 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
$r .device/sdpa bench --decode --len 1024,16384,131072 --fused-only > $o/decode.txt 2>&1
$r .device/sdpa bench --dtype f16 --hdim 128 --heads 32,8 --len 4 --kv-len 16384 --fused-only > $o/q4.txt 2>&1
tar -C /tmp -czf $OUT/n-after3.tgz n-after3
tail -2 $o/check.txt; echo "decode: $(grep 'test result' $o/test-decode.txt) $(tail -1 $o/test-decode.txt)"
cd $o; for f in decode.txt q4.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s/%s:%s/%s ", $2, $3, $11, $18}')"; done
