set -uo pipefail
# Run 160 (thirty-fourth session), the final tree 9042d58: sdpa check, tests/decode.rs whole;
# registers; the planner's decode at 32/8 (issue #5's heads), 64/8 and 32/2 heads, 4 copies of
# K and V, beside PyTorch's CUDA graph of the same calls; then issue #5's protocol.
o=/tmp/s160; mkdir -p $o /tmp/t160
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t160/decode && chmod +x /tmp/t160/decode
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 240 $r /tmp/t160/decode --test-threads=1 --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "tests at $SECONDS s"
timeout 60 $r .device/pipeline_stats --heads 64,8 --q-len 1 --kv-len 131072 --hdim 128 --dtype f16 > $o/stats.txt 2>&1
echo "stats: $(grep -E 'CS: Register|plan:' $o/stats.txt | cut -c1-150 | tr '\n' ' ')"
all="256,1024,2048,4096,8192,16384,32768,65536,131072"
long="4096,8192,16384,32768,65536,131072"
timeout 120 $r .device/sdpa bench --decode --len $all --fused-only --kv-copies 4 > $o/h32-8.txt 2>&1
for h in 64,8 32,2; do
  timeout 120 $r .device/sdpa bench --decode --heads $h --len $long --fused-only --kv-copies 4 > $o/h${h/,/-}.txt 2>&1
  WGPU_SDPA_TUNE=decode_ct=0 timeout 120 $r .device/sdpa bench --decode --heads $h --len $long --fused-only --kv-copies 4 > $o/h${h/,/-}-decode_ct=0.txt 2>&1
done
echo "sweeps at $SECONDS s"
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads 32 8 --lens ${all//,/ } > $o/torch-graph-32-8-c4.txt 2>&1
for h in "64 8" "32 2"; do
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads $h --lens ${long//,/ } > $o/torch-graph-${h/ /-}-c4.txt 2>&1
done
timeout 150 $r .device/sdpa bench --decode --len $all --json $o/decode.json > $o/decode.txt 2>&1
timeout 150 python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${all//,/ } > $o/torch-decode.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s160.tgz s160
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"; grep -E "FAIL|ERROR" check.txt | head -3
echo "decode test: $(grep 'test result' test-decode.txt) $(tail -1 test-decode.txt)"; grep -E "panicked|failed|SKIP" test-decode.txt | head -5
for f in h*.txt decode.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
echo "decode GB/s: $(grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%s/u%s ", $3+0, $18+0, $10+0}')"
for f in torch-graph-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
echo "protocol torch: $(tail -9 torch-decode.txt | awk -F, '{printf "%s:%.1f ", $3, $11*1000}')"
