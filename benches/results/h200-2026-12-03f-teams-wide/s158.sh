set -uo pipefail
# Run 158 (thirty-fourth session): e076316 (7 teams, one workgroup an SM, from 16384 keys) plus
# knob decode_ct_qreg (Q's fragments held in registers): sdpa check, tests/decode.rs whole;
# registers; 64/8, 32/2 and 32/8 heads by default and with the knob, beside PyTorch's CUDA graph.
o=/tmp/s158; mkdir -p $o /tmp/t158
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t158/decode && chmod +x /tmp/t158/decode
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 240 $r /tmp/t158/decode --test-threads=1 --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "tests at $SECONDS s"
for v in none decode_ct_qreg=1; do
  WGPU_SDPA_TUNE=$v timeout 60 $r .device/pipeline_stats --heads 64,8 --q-len 1 --kv-len 131072 --hdim 128 --dtype f16 > $o/stats-$v.txt 2>&1
  echo "$v: $(grep -E 'CS: Register|plan:' $o/stats-$v.txt | cut -c1-150 | tr '\n' ' ')"
done
lens="4096,8192,16384,32768,65536,131072"
for h in 64,8 32,2 32,8; do
vs="none decode_ct_qreg=1"
[ $h = 64,8 ] && vs="$vs decode_ct_qreg=1,decode_ablate=128 decode_ablate=128"
[ $h = 32,8 ] && vs="none decode_ct=1,decode_ct_qreg=1"
for v in $vs; do
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --heads $h --len $lens --fused-only --kv-copies 4 --budget-ms 150 > $o/h${h/,/-}-$v.txt 2>&1
done
done
echo "sweeps at $SECONDS s"
for h in "64 8" "32 2" "32 8"; do
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads $h --lens ${lens//,/ } > $o/torch-graph-${h/ /-}-c4.txt 2>&1
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s158.tgz s158
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"; grep -E "FAIL|ERROR" check.txt | head -3
echo "decode test: $(grep 'test result' test-decode.txt) $(tail -1 test-decode.txt)"; grep -E "panicked|failed|SKIP" test-decode.txt | head -5
for f in h*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f ", $3+0, b/$22/1e3}')"; done
for f in torch-graph-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
