set -uo pipefail
# Run 134 (thirtieth session): the fewest keys a decode split takes (MIN_SPLIT_KEYS, 256; knob
# decode_min_split), which limits the workgroups at short caches (1024 keys: 4 splits, 32
# workgroups on 132 SMs). Check with 32 and 64, then 256/128/64/32 interleaved, 3 rounds, with
# the calls on 1 copy and on 4 copies of K and V.
o=/tmp/s134; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
for m in 64 32; do
  WGPU_SDPA_TUNE=decode_min_split=$m timeout 150 $r .device/sdpa check > $o/check-m$m.txt 2>&1; echo "exit $?" >> $o/check-m$m.txt
done
echo "check at $SECONDS s"
lens="256,1024,2048,4096,8192,16384"
names="256 128 64 32"
for i in 1 2 3; do
  for m in $names; do
    for c in 1 4; do
      WGPU_SDPA_TUNE=decode_min_split=$m timeout 60 $r .device/sdpa bench --decode --len $lens --fused-only --kv-copies $c > $o/m$m-c$c-$i.txt 2>&1
    done
  done
  names=$(echo $names | tr ' ' '\n' | tac | tr '\n' ' ')
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s134.tgz s134
cd $o
for m in 64 32; do echo "check m$m: $(tail -2 check-m$m.txt | tr '\n' ' ')"; grep FAIL check-m$m.txt | head -3; done
for m in 256 128 64 32; do for c in 1 4; do for i in 1 2 3; do echo "m$m c$c r$i: $(grep -E '^ *[0-9]+, ' m$m-c$c-$i.txt | awk -F, '{printf "%s:%.1f ", $3, 4096*$3/$18/1e3}')"; done; done; done
grep -E '^ *[0-9]+, ' m32-c1-1.txt | awk -F, '{print $3, $NF}' | cut -c1-200
