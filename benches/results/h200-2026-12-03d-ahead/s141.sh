set -uo pipefail
# Run 141 (thirty-second session): the subgroup decode kernel's loads a block ahead (knob
# decode_sg_pf=1) and short caches split for two workgroups an SM (knob decode_min_split=64),
# d128 and d256, f16, 32/8 heads, q_len 1, 4 copies of K and V; sdpa check and tests/decode.rs
# with the loads ahead.
o=/tmp/s141; mkdir -p $o /tmp/t141
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t141/decode && chmod +x /tmp/t141/decode
WGPU_SDPA_TUNE=decode_sg_pf=1 timeout 150 $r .device/sdpa check > $o/check-pf.txt 2>&1; echo "exit $?" >> $o/check-pf.txt
WGPU_SDPA_TUNE=decode_sg_pf=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r /tmp/t141/decode --test-threads=1 > $o/test-decode-pf.txt 2>&1; echo "exit $?" >> $o/test-decode-pf.txt
echo "tests at $SECONDS s"
all="256,1024,2048,4096,8192,16384,32768,65536,131072"
for i in 1 2; do
  for v in none decode_sg_pf=1 decode_min_split=64 decode_sg_pf=1,decode_min_split=64; do
    for h in 128 256; do
      WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --hdim $h --len $all --fused-only --kv-copies 4 --budget-ms 150 > $o/d$h-$v-$i.txt 2>&1
    done
  done
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s141.tgz s141
cd $o
echo "check: $(tail -2 check-pf.txt | tr '\n' ' ')"; grep FAIL check-pf.txt | head -3
echo "decode tests: $(grep 'test result' test-decode-pf.txt) $(tail -1 test-decode-pf.txt)"
for f in d*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
grep -E '^ *[0-9]+, ' d128-decode_sg_pf=1-1.txt | awk -F, '{print $NF}' | head -9
