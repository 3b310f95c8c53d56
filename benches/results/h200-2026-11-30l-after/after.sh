set -uo pipefail
# After the final run: the cooperative-matrix decode kernel's row sums taken over P rounded to f16
# on its bits, as P V sees it (numerics' additive -inf test was 5.3e-4 off in the final run;
# rounding through f16 did not change it: the compiler took f32(f16(x)) for x): the decode and numerics test binaries, the decode check cases, the decode sweep beside PyTorch's.
o=/tmp/l-after; mkdir -p $o
r="bash .device/on-device.sh"
for n in numerics decode; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
$r .device/sdpa check --filter vector > $o/check-vector.txt 2>&1; echo "check exit $?" >> $o/check-vector.txt
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
tar -C /tmp -czf $OUT/l-after.tgz l-after
for n in numerics decode; do echo "$n: $(grep 'test result' $o/test-$n.txt) $(tail -1 $o/test-$n.txt)"; done
grep -E "FAIL|panicked" -A3 $o/test-*.txt | head -20; tail -2 $o/check-vector.txt
echo "decode: $(grep -E '^ *[0-9]+, ' $o/decode.txt | awk -F, '{printf "%s:%s/%s ", $3, $18, $11}')"
grep -E "^ *[0-9]" $o/torch-decode.txt | awk -F, '{printf "%s:%s ", $3, $11}'
