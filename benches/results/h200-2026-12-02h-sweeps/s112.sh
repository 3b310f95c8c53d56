set -uo pipefail
# Run 112 (twenty-seventh session): experimental knob decode_touch (32-bit loads that bring the
# next block's K/V sectors toward the SM while this block computes): registers per mode, then
# the modes interleaved with the default at 4096..131072 keys.
o=/tmp/s112; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
for t in 0 1 2 3 4 5; do
  WGPU_SDPA_TUNE="decode_touch=$t" timeout 60 bash .device/sass.sh capture $o/sass-t$t --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > /dev/null 2>&1
done
echo "stats at $SECONDS s"
names="t0 t1 t2 t3 t4 t5"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,32768,131072 --fused-only"
for i in 1 2 3 4; do
  for n in $names; do WGPU_SDPA_TUNE="decode_touch=${n#t}" timeout 60 $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1; done
  names=$(echo $names | tr ' ' '\n' | tac | tr '\n' ' ')
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s112.tgz s112
cd $o
for t in 0 1 2 3 4 5; do echo "t$t: $(grep -i -E 'regist' sass-t$t/pipeline_stats.txt | head -3 | tr '\n' ' ')"; done
for n in t0 t1 t2 t3 t4 t5; do for i in 1 2 3 4; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
