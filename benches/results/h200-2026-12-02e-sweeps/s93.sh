set -uo pipefail
# Run 93: the final tree (f9c1aa6; the kernels as in runs 91-92): the decode sweep beside
# PyTorch's SDPA twice, then 10 calls of the d128 rows.
o=/tmp/s93; mkdir -p $o
r="bash .device/on-device.sh"
lens="256,1024,2048,4096,8192,16384,32768,65536,131072"
for i in 1 2; do
  $r .device/sdpa bench --decode --len $lens --json $o/decode-$i.json > $o/decode-$i.txt 2>&1
  python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${lens//,/ } > $o/torch-decode-$i.txt 2>&1
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,32768,131072 --fused-only"
for i in 1 2 3 4 5 6 7 8 9 10; do
  $r .device/sdpa bench $d128 > $o/d128-$i.txt 2>&1
done
tar -C /tmp -czf $OUT/s93.tgz s93
cd $o
for i in 1 2; do
  echo "decode-$i: $(grep -E '^ *[0-9]+, ' decode-$i.txt | awk -F, '{printf "%s:%s/%s/%s ", $3, $10, $11, $18}')"
  tail -9 torch-decode-$i.txt | awk -F, '{printf "%s:%s ", $3, $11}'; echo
done
for i in 1 2 3 4 5 6 7 8 9 10; do echo "d128-$i: $(grep -E '^ *[0-9]+, ' d128-$i.txt | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
