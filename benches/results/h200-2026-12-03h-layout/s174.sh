set -uo pipefail
# Run 174 (thirty-sixth session): the in-pass merge in two steps (knob decode_merge_wide=1: the
# splits' (max, sum) pairs first, then each thread's column quads 16 at a time, weighted against
# the row's max) against the committed merge (5 rounds of 4 splits at 16384 keys): correctness
# (sdpa check, tests/decode.rs with the knob), then per call and one pass, interleaved.
o=/tmp/s174; mkdir -p $o /tmp/t174
r="bash .device/on-device.sh"
SECONDS=0
unx() { xz -dc "$1" > "$2" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; chmod +x "$2"; }
unx .device/t/sdpa.xz /tmp/sdpa-bin
unx .device/t/decode.xz /tmp/t174/decode
WGPU_SDPA_TUNE=decode_merge_wide=1 timeout 100 $r /tmp/sdpa-bin check > $o/check-wide.txt 2>&1; echo "exit $?" >> $o/check-wide.txt
echo "check wide: $(tail -2 $o/check-wide.txt | tr '\n' ' ') at $SECONDS s"
lens=1024,4096,16384,32768,131072
for rep in 1 2 3; do
  for k in none decode_merge_wide=1; do
    t=$k; [ $k = none ] && t=""
    WGPU_SDPA_TUNE=$t timeout 40 $r /tmp/sdpa-bin bench --decode --len $lens --fused-only > $o/b-$k-$rep.txt 2>&1
  done
done
echo "benches at $SECONDS s"
WGPU_SDPA_TUNE=decode_merge_wide=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r /tmp/t174/decode --test-threads=1 --nocapture > $o/test-decode-wide.txt 2>&1; echo "exit $?" >> $o/test-decode-wide.txt
echo "decode wide: $(grep 'test result' $o/test-decode-wide.txt | tail -1) $(tail -1 $o/test-decode-wide.txt) at $SECONDS s"
tar -C /tmp -czf $OUT/s174.tgz s174
cd $o
grep -E "FAIL|panicked" check-wide.txt test-decode-wide.txt | head -5
for f in b-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:c%.2f/p%.2f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
