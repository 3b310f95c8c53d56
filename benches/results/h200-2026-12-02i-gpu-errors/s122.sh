set -uo pipefail
# Run 122 (twenty-eighth session): why the decode sweep's 16384-key call reads ~0.8% under the
# `sdpa bench` runs of the same row (runs 105 and 113: 2137.8 against a median of ~2157, 2155.3
# against 2171.0). Is it the unfused path timed just before it on the same row? Interleaved: the
# sweep as issue #5's protocol runs it (unfused then ours, each row), the sweep with
# --fused-only, and the d128 rows (--fused-only), 4 times each; then PyTorch's decode sweep once.
o=/tmp/s122; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
lens="256,1024,2048,4096,8192,16384,32768,65536,131072"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,32768,131072 --fused-only"
for i in 1 2 3 4; do
  timeout 120 $r .device/sdpa bench --decode --len $lens > $o/sweep-$i.txt 2>&1
  timeout 60 $r .device/sdpa bench --decode --len $lens --fused-only > $o/sweep-fused-only-$i.txt 2>&1
  timeout 60 $r .device/sdpa bench $d128 > $o/head-$i.txt 2>&1
  echo "round $i at $SECONDS s"
done
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${lens//,/ } > $o/torch-decode.txt 2>&1
tar -C /tmp -czf $OUT/s122.tgz s122
cd $o
row() { grep -E '^ *1, +1, +'$2',' $1 | awk -F, '{printf "%s", $18}' | tr -d ' '; }
for i in 1 2 3 4; do
  echo "round $i 16384: sweep $(row sweep-$i.txt 16384) fused-only $(row sweep-fused-only-$i.txt 16384) head $(row head-$i.txt 16384);  131072: $(row sweep-$i.txt 131072) $(row sweep-fused-only-$i.txt 131072) $(row head-$i.txt 131072)"
done
for f in sweep-1.txt sweep-fused-only-1.txt; do echo "$f: $(grep -E '^ *1, +1, ' $f | awk -F, '{printf "%s:%s ", $3, $11}')"; done
tail -9 torch-decode.txt | awk -F, '{printf "%s:%s ", $3, $11}'; echo
echo "all at $SECONDS s"
