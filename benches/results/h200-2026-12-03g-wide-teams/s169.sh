set -uo pipefail
# Run 169 (thirty-fifth session), 7122cae: the subgroup decode kernel at head dims whose chunks
# are no power of two (d80, d96, d112, d192): sdpa check, tests/decode.rs; registers; the
# planner against decode_sg=0 (the kernel that served them before) at 32/8 and 32/32 heads;
# PyTorch's CUDA graph at d96 and d192.
o=/tmp/s169; mkdir -p $o /tmp/t169
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t169/decode && chmod +x /tmp/t169/decode
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 240 $r /tmp/t169/decode --test-threads=1 --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "tests at $SECONDS s"
for d in 96 192; do
  timeout 60 $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 65536 --hdim $d --dtype f16 > $o/stats-d$d.txt 2>&1
done
lens="1024,4096,16384,65536"
for d in 80 96 112 192; do
  for h in 32,8 32,32; do
    for k in none decode_sg=0; do
      t=$k; [ $k = none ] && t=""
      WGPU_SDPA_TUNE=$t timeout 120 $r .device/sdpa bench --decode --hdim $d --heads $h --len $lens --fused-only --kv-copies 4 > $o/d$d-h${h/,/-}-$k.txt 2>&1
    done
  done
done
echo "sweeps at $SECONDS s"
for d in 96 192; do
  for h in "32 8" "32 32"; do
    timeout 120 python3 .device/torch_decode_cold.py --graph --copies 4 --hdim $d --heads $h --lens ${lens//,/ } > $o/torch-d$d-${h/ /-}.txt 2>&1
  done
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s169.tgz s169
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"; grep -E "FAIL|ERROR" check.txt | head -3
echo "decode test: $(grep 'test result' test-decode.txt) $(tail -1 test-decode.txt)"; grep -E "panicked|failed|SKIP|cases on the subgroup" test-decode.txt | head -8
for f in stats*.txt; do echo "$f: $(grep -E 'CS: Register|plan:' $f | cut -c1-120 | tr '\n' ' ')"; done
for f in d*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:p%.1f/c%.1f ", $3+0, b/$22/1e3, b/$18/1e3}')"; done
for f in d*-none.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | head -1 | awk -F, '{print $23}' | cut -c1-110)"; done
for f in d*-decode_sg=0.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | sed -n 3p | awk -F, '{print $23}' | cut -c1-90)"; done
for f in torch-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
