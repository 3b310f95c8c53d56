set -uo pipefail
# Run 99: the decode sweep of this tree beside PyTorch's SDPA, twice in one command (the issue #5
# record), the committed tree's (sdpa0) sweep between them.
o=/tmp/s99; mkdir -p $o
r="bash .device/on-device.sh"
lens="256,1024,2048,4096,8192,16384,32768,65536,131072"
for i in 1 2; do
  $r .device/sdpa bench --decode --len $lens --json $o/decode-$i.json > $o/decode-$i.txt 2>&1
  python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${lens//,/ } > $o/torch-$i.txt 2>&1
  [ $i = 1 ] && $r .device/sdpa0 bench --decode --len $lens > $o/old-decode.txt 2>&1
done
tar -C /tmp -czf $OUT/s99.tgz s99
cd $o
for f in decode-1 old-decode decode-2; do echo "$f: $(grep -E '^ *[0-9]+, ' $f.txt | awk -F, '{printf "%s:%s/%s/%s ", $3, $10, $11, $18}')"; done
for i in 1 2; do tail -9 torch-$i.txt | awk -F, '{printf "%s:%s ", $3, $11}'; echo; done
