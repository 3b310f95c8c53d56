set -uo pipefail
# Run 106: K and/or V bound `@coherent` (`sdpa1`, knob decode_coh: 1 K, 2 V, 3 both; coherent
# loads are device-scope, not the read-only path) against the committed kernels, interleaved.
o=/tmp/s106; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 1024,4096,8192,16384,32768,131072 --fused-only"
for i in 1 2 3 4 5 6; do
  if [ $((i % 2)) = 1 ]; then order="0 1 2 3"; else order="3 2 1 0"; fi
  for n in $order; do
    if [ $n = 0 ]; then timeout 60 $r .device/sdpa bench $d128 > $o/c$n-$i.txt 2>&1
    else WGPU_SDPA_TUNE=decode_coh=$n timeout 60 $r .device/sdpa1 bench $d128 > $o/c$n-$i.txt 2>&1; fi
  done
done
for n in 1 2 3; do WGPU_SDPA_TUNE=decode_coh=$n timeout 100 $r .device/sdpa1 check --filter vector > $o/check-c$n.txt 2>&1; echo "exit $?" >> $o/check-c$n.txt; done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s106.tgz s106
cd $o
for n in 1 2 3; do echo "check c$n: $(tail -2 check-c$n.txt | tr '\n' ' ')"; done
for n in 0 1 2 3; do for i in 1 2 3 4 5 6; do echo "c$n-$i: $(grep -E '^ *[0-9]+, ' c$n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
