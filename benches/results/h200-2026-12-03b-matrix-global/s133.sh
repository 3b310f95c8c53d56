set -uo pipefail
# Run 133 (thirtieth session): PyTorch's SDPA decode timed as a loop of calls and as a CUDA graph
# of the same calls (its GPU time without the host's launches), 1 and 4 copies of K and V, beside
# our decode sweep, two rounds in one command.
o=/tmp/s133; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
lens="1024,4096,8192,16384,32768,65536,131072"
for i in 1 2; do
  $r .device/sdpa bench --decode --len $lens --fused-only --json $o/ours-$i.json > $o/ours-$i.txt 2>&1
  python3 .device/torch_decode_cold.py --copies 1 4 --lens ${lens//,/ } > $o/torch-loop-$i.txt 2>&1
  python3 .device/torch_decode_cold.py --graph --copies 1 4 --lens ${lens//,/ } > $o/torch-graph-$i.txt 2>&1
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s133.tgz s133
cd $o
for i in 1 2; do
  echo "ours r$i: $(grep -E '^ *[0-9]+, ' ours-$i.txt | awk -F, '{printf "%s:%.1f ", $3, 4096*$3/$18/1e3}')"
  echo "loop r$i: $(grep -E '^ *[0-9]+, ' torch-loop-$i.txt | awk -F, '{printf "%s/%s:%.1f ", $1+0, $2+0, $3*1000}')"
  echo "graph r$i: $(grep -E '^ *[0-9]+, ' torch-graph-$i.txt | awk -F, '{printf "%s/%s:%.1f ", $1+0, $2+0, $3*1000}')"
done
tail -3 torch-graph-1.txt
