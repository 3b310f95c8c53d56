set -uo pipefail
# Run 95: a block's P V a step late (LAG, knob decode_lag=1) against the committed tree
# (sdpa0 = 88689aa) and this tree's default (LAG=0, the loop's steps as block_scores/block_pv).
o=/tmp/s95; mkdir -p $o
r="bash .device/on-device.sh"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
for n in base lag lag4; do
  case $n in base) T="";; lag) T="decode_lag=1";; lag4) T="decode_lag=1,decode_teams=4,decode_wgs=528";; esac
  WGPU_SDPA_TUNE="$T" timeout 60 $r .device/pipeline_stats $shape > $o/stats-$n.txt 2>&1
done
grep -i -E "register|variant" $o/stats-*.txt | head -30
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 1024,4096,16384,32768,131072 --fused-only"
declare -A V=( [old]="" [new]="" [lag]="decode_lag=1" [lag4]="decode_lag=1,decode_teams=4,decode_wgs=528" [lag4b]="decode_lag=1,decode_teams=4,decode_wgs=396" )
for i in 1 2 3 4 5 6 7 8; do
  if [ $((i % 2)) = 1 ]; then order="old new lag lag4 lag4b"; else order="lag4b lag4 lag new old"; fi
  for n in $order; do
    b=.device/sdpa; [ $n = old ] && b=.device/sdpa0
    WGPU_SDPA_TUNE="${V[$n]}" timeout 60 $r $b bench $d128 > $o/$n-$i.txt 2>&1
  done
done
for n in old new lag lag4 lag4b; do for i in 1 2 3 4 5 6 7 8; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $o/$n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
export WGPU_SDPA_REQUIRE_ADAPTER=1
WGPU_SDPA_TUNE=decode_lag=1 timeout 300 $r .device/t/decode > $o/decode-lag.txt 2>&1; echo "decode lag rc=$?"; grep -E "test result|SKIP|clamp|whole" $o/decode-lag.txt | head
tar -C /tmp -czf $OUT/s95.tgz s95
