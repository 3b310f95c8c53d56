set -uo pipefail
# Run 171 (thirty-fifth session), the final tree 4edca57: tests/decode.rs (d160 and d224 added),
# sdpa check; the planner's decode at 32/8 heads d128 (4 copies, one pass) and issue #5's
# protocol; d160 and d224 against decode_sg=0.
o=/tmp/s171; mkdir -p $o /tmp/t171
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t171/decode && chmod +x /tmp/t171/decode
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r /tmp/t171/decode --test-threads=1 --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "decode test: $(grep 'test result' $o/test-decode.txt | tail -1) $(tail -1 $o/test-decode.txt) at $SECONDS s"
timeout 100 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
echo "check: $(tail -2 $o/check.txt | tr '\n' ' ') at $SECONDS s"
all="256,1024,2048,4096,8192,16384,32768,65536,131072"
timeout 60 $r .device/sdpa bench --decode --len $all --fused-only --kv-copies 4 > $o/h32-8.txt 2>&1
timeout 60 $r .device/sdpa bench --decode --len $all --json $o/decode.json > $o/decode.txt 2>&1
for d in 160 224; do
  for k in none decode_sg=0; do
    t=$k; [ $k = none ] && t=""
    WGPU_SDPA_TUNE=$t timeout 40 $r .device/sdpa bench --decode --hdim $d --len 4096,65536 --fused-only --kv-copies 4 > $o/d$d-$k.txt 2>&1
  done
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s171.tgz s171
cd $o
grep -E "panicked|failed|SKIP|cases on the subgroup" test-decode.txt | head -8
for f in h*.txt decode.txt d1*.txt d2*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:p%.1f/c%.1f ", $3+0, b/$22/1e3, b/$18/1e3}')"; done
echo "decode GB/s: $(grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%s/u%s ", $3+0, $18+0, $10+0}')"
