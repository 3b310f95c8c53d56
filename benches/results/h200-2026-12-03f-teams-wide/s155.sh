set -uo pipefail
# Run 155 (thirty-fourth session): the tree of the thirty-third session's end (45569cc) with the
# cooperative-matrix subgroup kernel's slots in 4-element words (one 8-byte store a word where
# it stored one f16 at a time), AHEAD=2 (one block's rows in flight) and RESCALE_LOG2 knobs:
# sdpa check, its test in tests/decode.rs; registers;
# 64/8 and 32/2 heads beside PyTorch's CUDA graph.
o=/tmp/s155; mkdir -p $o /tmp/t155
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t155/decode && chmod +x /tmp/t155/decode
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r /tmp/t155/decode cooperative_matrix --test-threads=1 --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "tests at $SECONDS s"
for v in decode_ct=1 decode_ct=1,decode_ct_ahead=2 decode_ct=1,decode_ct_ahead=2,decode_teams=6 decode_ct=1,decode_teams=6; do
  WGPU_SDPA_TUNE=$v timeout 60 $r .device/pipeline_stats --heads 64,8 --q-len 1 --kv-len 131072 --hdim 128 --dtype f16 > $o/stats-$v.txt 2>&1
  echo "$v: $(grep -E 'CS: Register|Local Memory' $o/stats-$v.txt | tr '\n' ' ')"
done
long="16384,65536,131072"
for h in 64,8 32,2; do
vs="decode_ct=0 decode_ct=1 decode_ct=1,decode_ct_ahead=2 decode_ct=1,decode_ct_ahead=2,decode_teams=6"
[ $h = 64,8 ] && vs="$vs decode_ct=1,decode_teams=6 decode_ct=1,decode_ct_ahead=2,decode_wgs=396 decode_ct=1,decode_ct_rescale=15 decode_ct=1,decode_ablate=128"
for v in $vs; do
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --heads $h --len $long --fused-only --kv-copies 4 --budget-ms 150 > $o/h${h/,/-}-$v.txt 2>&1
done
done
echo "sweeps at $SECONDS s"
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads 64 8 --lens ${long//,/ } > $o/torch-graph-g8-c4.txt 2>&1
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads 32 2 --lens ${long//,/ } > $o/torch-graph-g16-c4.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s155.tgz s155
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"; grep -E "FAIL|ERROR" check.txt | head -3
echo "decode test: $(grep 'test result' test-decode.txt) $(tail -1 test-decode.txt)"; grep -E "panicked|failed|SKIP" test-decode.txt | head -5
for f in h*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
for f in torch-graph-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
