set -uo pipefail
# Run 172 (thirty-sixth session), 1a592b5 (src/kernels/vector.rs split into src/kernels/vector/,
# a move): the test binaries on the H200 (all but cli, gpu_errors and tuned_variants, which run
# 173) and sdpa check.
o=/tmp/s172; mkdir -p $o /tmp/t172
r="bash .device/on-device.sh"
SECONDS=0
unx() { xz -dc "$1" > "$2" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; chmod +x "$2"; }
unx .device/t/sdpa.xz /tmp/sdpa-bin
for t in decode correctness numerics embedding bad_input concurrency limits resources fuzz_desc; do
  unx .device/t/$t.xz /tmp/t172/$t
done
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r /tmp/t172/decode --test-threads=1 --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "decode: $(grep 'test result' $o/test-decode.txt | tail -1) $(tail -1 $o/test-decode.txt) at $SECONDS s"
timeout 120 $r /tmp/sdpa-bin check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
echo "check: $(tail -2 $o/check.txt | tr '\n' ' ') at $SECONDS s"
for t in correctness numerics embedding bad_input concurrency limits resources fuzz_desc; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 100 $r /tmp/t172/$t --nocapture > $o/test-$t.txt 2>&1; echo "exit $?" >> $o/test-$t.txt
  echo "$t: $(grep 'test result' $o/test-$t.txt | tail -1) $(tail -1 $o/test-$t.txt) at $SECONDS s"
done
tar -C /tmp -czf $OUT/s172.tgz s172
cd $o
grep -E "panicked|failed|cases on the subgroup" test-decode.txt | head -8
echo "SKIPPED lines: $(grep -h -c SKIP test-*.txt | tr '\n' ' ')"
