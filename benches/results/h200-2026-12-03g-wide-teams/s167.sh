set -uo pipefail
# Run 167 (thirty-fifth session), 849d0de (wide_teams narrowed to where every clock was faster):
# sdpa check, tests/decode.rs; the planner against decode_wide=0 in turn at 32/8 heads, f16
# and f32, every clock; PyTorch's CUDA graph; issue #5's protocol.
o=/tmp/s167; mkdir -p $o /tmp/t167
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t167/decode && chmod +x /tmp/t167/decode
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 240 $r /tmp/t167/decode --test-threads=1 --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "tests at $SECONDS s"
all="256,1024,2048,4096,8192,16384,32768,65536,131072"
for rep in 1 2; do
  for k in none decode_wide=0; do
    t=$k; [ $k = none ] && t=""
    WGPU_SDPA_TUNE=$t timeout 120 $r .device/sdpa bench --decode --len $all --fused-only --kv-copies 4 > $o/h32-8-$k-$rep.txt 2>&1
    WGPU_SDPA_TUNE=$t timeout 120 $r .device/sdpa bench --decode --dtype f32 --len 4096,8192,16384,32768,65536 --fused-only --kv-copies 4 > $o/f32-$k-$rep.txt 2>&1
  done
done
echo "sweeps at $SECONDS s"
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads 32 8 --lens ${all//,/ } > $o/torch-graph-32-8-c4.txt 2>&1
timeout 150 $r .device/sdpa bench --decode --len $all --json $o/decode.json > $o/decode.txt 2>&1
timeout 150 python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${all//,/ } > $o/torch-decode.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s167.tgz s167
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"; grep -E "FAIL|ERROR" check.txt | head -3
echo "decode test: $(grep 'test result' test-decode.txt) $(tail -1 test-decode.txt)"; grep -E "panicked|failed|SKIP|cases on the subgroup" test-decode.txt | head -8
for f in h*.txt f32*.txt decode.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s/%s ", $3+0, $18+0, $20+0, $22+0}')"; done
for f in h*.txt decode.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:p%.1f ", $3+0, b/$22/1e3}')"; done
echo "decode GB/s: $(grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%s/u%s ", $3+0, $18+0, $10+0}')"
for f in torch-graph-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
echo "protocol torch: $(tail -9 torch-decode.txt | awk -F, '{printf "%s:%.1f ", $3, $11*1000}')"
