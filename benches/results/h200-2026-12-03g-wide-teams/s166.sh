set -uo pipefail
# Run 166 (thirty-fifth session), the tree with wide_teams (uncommitted on ea848d2): sdpa check,
# tests/decode.rs; the planner against decode_wide=0 (8 teams) in turn on the same machine at
# 32/8 (f16, f32), 8/8, 64/16 heads and batch 2 (these two not taken: decode_wide=1 beside);
# 2048 keys with 16 splits of 128 keys on 16 teams; PyTorch's graph; issue #5's protocol.
o=/tmp/s166; mkdir -p $o /tmp/t166
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t166/decode && chmod +x /tmp/t166/decode
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 240 $r /tmp/t166/decode --test-threads=1 --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "tests at $SECONDS s"
WGPU_SDPA_TUNE=decode_wide=1 timeout 60 $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $o/stats.txt 2>&1
all="256,1024,2048,4096,8192,16384,32768,65536,131072"
mid="2048,4096,8192,16384,32768,65536"
for rep in 1 2; do
  for k in none decode_wide=0; do
    t=$k; [ $k = none ] && t=""
    WGPU_SDPA_TUNE=$t timeout 120 $r .device/sdpa bench --decode --len $all --fused-only --kv-copies 4 > $o/h32-8-$k-$rep.txt 2>&1
    WGPU_SDPA_TUNE=$t timeout 120 $r .device/sdpa bench --decode --dtype f32 --len $mid --fused-only --kv-copies 4 > $o/f32-$k-$rep.txt 2>&1
    WGPU_SDPA_TUNE=$t timeout 120 $r .device/sdpa bench --decode --heads 8,8 --len $mid --fused-only --kv-copies 4 > $o/h8-8-$k-$rep.txt 2>&1
  done
  for k in none decode_wide=1; do
    t=$k; [ $k = none ] && t=""
    WGPU_SDPA_TUNE=$t timeout 120 $r .device/sdpa bench --decode --heads 64,16 --len $mid --fused-only --kv-copies 4 > $o/h64-16-$k-$rep.txt 2>&1
    WGPU_SDPA_TUNE=$t timeout 120 $r .device/sdpa bench --decode --batch 2 --len $mid --fused-only --kv-copies 4 > $o/b2-$k-$rep.txt 2>&1
  done
  WGPU_SDPA_TUNE=decode_wide=1,decode_min_split=128 timeout 120 $r .device/sdpa bench --decode --len 2048 --fused-only --kv-copies 4 > $o/h32-8-2048-w16s16-$rep.txt 2>&1
done
echo "sweeps at $SECONDS s"
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads 32 8 --lens ${all//,/ } > $o/torch-graph-32-8-c4.txt 2>&1
timeout 150 $r .device/sdpa bench --decode --len $all --json $o/decode.json > $o/decode.txt 2>&1
timeout 150 python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${all//,/ } > $o/torch-decode.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s166.tgz s166
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"; grep -E "FAIL|ERROR" check.txt | head -3
echo "decode test: $(grep 'test result' test-decode.txt) $(tail -1 test-decode.txt)"; grep -E "panicked|failed|SKIP|cases on the subgroup" test-decode.txt | head -8
echo "stats: $(grep -E 'CS: Register|plan:' stats.txt | cut -c1-150 | tr '\n' ' ')"
for f in h*.txt f32*.txt b2*.txt decode.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:p%.1f ", $3+0, b/$22/1e3}')"; done
echo "decode GB/s: $(grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%s/u%s ", $3+0, $18+0, $10+0}')"
for f in torch-graph-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
echo "protocol torch: $(tail -9 torch-decode.txt | awk -F, '{printf "%s:%.1f ", $3, $11*1000}')"
