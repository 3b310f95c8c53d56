set -uo pipefail
# Run 132 (thirtieth session): the decode sweep with its calls on one copy of K and V (as issue
# #5's protocol times them) and on 4 copies taken in turn (no call finds the last call's K and V
# in the 50 MB L2: 4 x 67 MB at 16384 keys), ours and PyTorch's, two rounds in one command.
o=/tmp/s132; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
lens="1024,4096,8192,16384,32768,65536,131072"
for i in 1 2; do
  for n in 1 4; do
    $r .device/sdpa bench --decode --len $lens --fused-only --kv-copies $n --json $o/ours-c$n-$i.json > $o/ours-c$n-$i.txt 2>&1
  done
  python3 .device/torch_decode_cold.py --copies 1 4 --lens ${lens//,/ } > $o/torch-$i.txt 2>&1
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s132.tgz s132
cd $o
for i in 1 2; do
  for n in 1 4; do echo "ours c$n r$i: $(grep -E '^ *[0-9]+, ' ours-c$n-$i.txt | awk -F, '{printf "%s:%.1f/%s ", $3, 4096*$3/$18/1e3, $18}')"; done
  echo "torch r$i:"; cat torch-$i.txt
done
