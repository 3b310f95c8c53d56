set -uo pipefail
# Run 70: run 69's tree (sdpa) against 929d653 (sdpa-prev) on the other merged shapes.
o=/tmp/s70; mkdir -p $o
r="bash .device/on-device.sh"
k="--len 1 --kv-len 4096,16384,65536 --fused-only"
for i in 1 2; do
  for b in prev sdpa; do
    bin=.device/sdpa; [ $b = prev ] && bin=.device/sdpa-prev
    $r $bin bench --dtype f16 --hdim 64 --heads 32,8 $k > $o/$b-d64-$i.txt 2>&1
    $r $bin bench --dtype f32 --hdim 128 --heads 32,8 $k > $o/$b-f32-$i.txt 2>&1
    $r $bin bench --dtype f16 --hdim 128 --heads 32,32 $k > $o/$b-mha-$i.txt 2>&1
    $r $bin bench --dtype f16 --hdim 128 --heads 32,8 --len 2 --kv-len 4096,16384,65536 --fused-only > $o/$b-q2-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s70.tgz s70
cd $o; for s in d64 f32 mha q2; do for b in prev sdpa; do for i in 1 2; do f=$b-$s-$i.txt; echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3, $18}') $(grep -o 'merged_in_pass' $f | head -1)"; done; done; done
