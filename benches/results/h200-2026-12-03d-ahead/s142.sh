set -uo pipefail
# Run 142 (thirty-second session): the subgroup decode kernel's loads a block ahead, the last
# block's loads asked for past it (decode_sg_pf=1) or the last block taken after the loop
# (decode_sg_pf=2), against the committed kernel; d128 three rounds interleaved, d256 and d64
# once; registers; sdpa check and tests/decode.rs with decode_sg_pf=2.
o=/tmp/s142; mkdir -p $o /tmp/t142
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t142/decode && chmod +x /tmp/t142/decode
for v in none decode_sg_pf=1 decode_sg_pf=2; do
  for kv in 2048 16384 131072; do
    WGPU_SDPA_TUNE=$v timeout 60 $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len $kv --hdim 128 --dtype f16 > $o/stats-$v-$kv.txt 2>&1
  done
done
WGPU_SDPA_TUNE=decode_sg_pf=2 timeout 150 $r .device/sdpa check > $o/check-pf2.txt 2>&1; echo "exit $?" >> $o/check-pf2.txt
WGPU_SDPA_TUNE=decode_sg_pf=2 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r /tmp/t142/decode --test-threads=1 > $o/test-decode-pf2.txt 2>&1; echo "exit $?" >> $o/test-decode-pf2.txt
echo "tests at $SECONDS s"
all="256,1024,2048,4096,8192,16384,32768,65536,131072"
for i in 1 2 3; do
  for v in none decode_sg_pf=1 decode_sg_pf=2; do
    WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --len $all --fused-only --kv-copies 4 --budget-ms 150 > $o/d128-$v-$i.txt 2>&1
  done
done
for v in none decode_sg_pf=1 decode_sg_pf=2; do
  for h in 256 64; do
    WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --hdim $h --len $all --fused-only --kv-copies 4 --budget-ms 150 > $o/d$h-$v-1.txt 2>&1
  done
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s142.tgz s142
cd $o
echo "check: $(tail -2 check-pf2.txt | tr '\n' ' ')"; grep FAIL check-pf2.txt | head -3
echo "decode tests: $(grep 'test result' test-decode-pf2.txt) $(tail -1 test-decode-pf2.txt)"
for f in stats-*.txt; do echo "$f: $(grep -i -E 'register' $f | head -3 | tr '\n' ' ')"; done
for f in d*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
