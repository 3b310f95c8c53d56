set -uo pipefail
# Run 137 (thirty-first session), tree 6d9c6cb: the short caches' splits whichever pass merges
# them (5976e94), Attention::encode_in_pass and sdpa bench's b2b_1pass column. sdpa check,
# tests/decode.rs and tests/embedding.rs (encode_in_pass on the H200); the decode sweep at d128
# and d256 with 4 copies of K and V (per pass, back to back a pass each, back to back in one
# pass) beside PyTorch's CUDA graph of the same calls; then issue #5's protocol.
o=/tmp/s137; mkdir -p $o /tmp/t137
r="bash .device/on-device.sh"
SECONDS=0
for t in decode embedding; do gunzip -c .device/t/$t.gz > /tmp/t137/$t && chmod +x /tmp/t137/$t; done
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
for t in decode embedding; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r /tmp/t137/$t --test-threads=1 > $o/test-$t.txt 2>&1; echo "exit $?" >> $o/test-$t.txt
done
echo "tests at $SECONDS s"
all="256,1024,2048,4096,8192,16384,32768,65536,131072"
for i in 1 2; do
  timeout 120 $r .device/sdpa bench --decode --len $all --fused-only --kv-copies 4 --json $o/d128-c4-$i.json > $o/d128-c4-$i.txt 2>&1
done
timeout 120 $r .device/sdpa bench --decode --hdim 256 --len $all --fused-only --kv-copies 4 > $o/d256-c4.txt 2>&1
timeout 120 $r .device/sdpa bench --decode --len $all --fused-only > $o/d128-c1.txt 2>&1
echo "sweeps at $SECONDS s"
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --lens ${all//,/ } > $o/torch-graph-c4.txt 2>&1
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --hdim 256 --lens ${all//,/ } > $o/torch-graph-d256-c4.txt 2>&1
$r .device/sdpa bench --decode --len $all --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${all//,/ } > $o/torch-decode.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s137.tgz s137
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"; grep FAIL check.txt | head -3
for t in decode embedding; do echo "$t tests: $(grep 'test result' test-$t.txt) $(tail -1 test-$t.txt)"; done
for f in d128-c4-1.txt d128-c4-2.txt d256-c4.txt d128-c1.txt decode.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/b%.1f/p%.1f ", $3+0, b/$18/1e3, b/$20/1e3, b/$22/1e3}')"; done
echo "decode GB/s: $(grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%s/u%s ", $3+0, $18+0, $10+0}')"
for f in torch-graph-c4.txt torch-graph-d256-c4.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
echo "protocol torch: $(tail -9 torch-decode.txt | awk -F, '{printf "%s:%.1f ", $3, $11*1000}')"
