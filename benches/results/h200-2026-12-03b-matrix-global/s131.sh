set -uo pipefail
# Run 131 (thirtieth session): issue #5's protocol on the committed tree a9186f0 (kernels as
# 9da6686), three rounds on one start of the machine: the decode sweep, then PyTorch's SDPA on
# the same shapes, in the same command.
o=/tmp/s131; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
lens="256,1024,2048,4096,8192,16384,32768,65536,131072"
for i in 1 2 3; do
  $r .device/sdpa bench --decode --len $lens --json $o/decode-$i.json > $o/decode-$i.txt 2>&1
  python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${lens//,/ } > $o/torch-decode-$i.txt 2>&1
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s131.tgz s131
cd $o
for i in 1 2 3; do
  echo "round $i ours: $(grep -E '^ *[0-9]+, ' decode-$i.txt | awk -F, '{printf "%s:%s/%s/%s ", $3, $10, $11, $18}')"
  echo "round $i torch: $(tail -9 torch-decode-$i.txt | awk -F, '{printf "%s:%s ", $3, $11}')"
done
