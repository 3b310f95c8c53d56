set -uo pipefail
# Run 173 (thirty-sixth session), 1a592b5: tests/tuned_variants.rs and tests/gpu_errors.rs;
# issue #5's protocol (sdpa bench --decode beside torch_sdpa_bench.py --decode) and its
# 16384-key row three times more; the planner's decode in one pass (4 copies) beside PyTorch's
# CUDA graph; per call at 16384 / 32768 keys 8 against 16 teams with and without the in-pass
# merge (decode_merge_ablate=8: no fences, no merge; wrong results, timing only).
o=/tmp/s173; mkdir -p $o /tmp/t173
r="bash .device/on-device.sh"
SECONDS=0
unx() { xz -dc "$1" > "$2" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; chmod +x "$2"; }
unx .device/t/sdpa.xz /tmp/sdpa-bin
for t in tuned_variants gpu_errors; do
  unx .device/t/$t.xz /tmp/t173/$t
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r /tmp/t173/$t --nocapture > $o/test-$t.txt 2>&1; echo "exit $?" >> $o/test-$t.txt
  echo "$t: $(grep 'test result' $o/test-$t.txt | tail -1) $(tail -1 $o/test-$t.txt) at $SECONDS s"
done
all="256,1024,2048,4096,8192,16384,32768,65536,131072"
timeout 100 $r /tmp/sdpa-bin bench --decode --len $all --json $o/decode.json > $o/decode.txt 2>&1
timeout 100 python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${all//,/ } > $o/torch-decode.txt 2>&1
for i in 1 2 3; do timeout 40 $r /tmp/sdpa-bin bench --decode --len 16384,131072 > $o/protocol-$i.txt 2>&1; done
echo "protocol at $SECONDS s"
timeout 60 $r /tmp/sdpa-bin bench --decode --len $all --fused-only --kv-copies 4 > $o/h32-8.txt 2>&1
timeout 120 python3 .device/torch_decode_cold.py --graph --copies 4 --heads 32 8 --lens ${all//,/ } > $o/torch-graph-32-8-c4.txt 2>&1
echo "one pass at $SECONDS s"
for rep in 1 2; do
  for k in decode_wide=0 decode_wide=1 decode_wide=0,decode_merge_ablate=8 decode_wide=1,decode_merge_ablate=8; do
    WGPU_SDPA_TUNE=$k timeout 30 $r /tmp/sdpa-bin bench --decode --len 16384,32768 --fused-only > $o/pc-$k-$rep.txt 2>&1
  done
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s173.tgz s173
cd $o
for f in decode.txt protocol-*.txt; do echo "$f GB/s: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/u%s ", $3+0, $18+0, $10+0}')"; done
echo "protocol torch: $(tail -9 torch-decode.txt | awk -F, '{printf "%s:%.1f ", $3, $11*1000}')"
echo "ours per call: $(grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%.1f ", $3+0, $11*1000}')"
echo "h32-8 one pass: $(grep -E '^ *[0-9]+, ' h32-8.txt | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f ", $3+0, b/$22/1e3}')"
for f in torch-graph-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
for f in pc-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:c%.2f/p%.2f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
