set -uo pipefail
# Run 100: V's loads a block ahead, staged in the teams' outputs (`decode_stage` 1 and 2 of this
# tree) against the tree's default (`new`, the committed 6ae7ac9's kernels) and 88689aa (`old`).
o=/tmp/s100; mkdir -p $o
r="bash .device/on-device.sh"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
for n in new st1 st2; do
  case $n in new) T="";; st1) T="decode_stage=1";; st2) T="decode_stage=2";; esac
  WGPU_SDPA_TUNE="$T" timeout 60 $r .device/pipeline_stats $shape > $o/stats-$n.txt 2>&1
  echo "$n: $(grep 'CS: Register' $o/stats-$n.txt | head -1)"
done
declare -A V=( [old]="" [new]="" [st1]="decode_stage=1" [st2]="decode_stage=2" )
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 256,1024,4096,16384,32768,131072 --fused-only"
for i in 1 2 3 4 5 6; do
  if [ $((i % 2)) = 1 ]; then order="old new st1 st2"; else order="st2 st1 new old"; fi
  for n in $order; do
    b=.device/sdpa; [ $n = old ] && b=.device/sdpa0
    WGPU_SDPA_TUNE="${V[$n]}" timeout 60 $r $b bench $d128 > $o/$n-$i.txt 2>&1
  done
done
for n in old new st1 st2; do for i in 1 2 3 4 5 6; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $o/$n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
export WGPU_SDPA_REQUIRE_ADAPTER=1
for n in st1 st2; do
  WGPU_SDPA_TUNE="${V[$n]}" timeout 120 $r .device/t/decode > $o/decode-$n.txt 2>&1; echo "decode $n rc=$?"; grep -E "test result" $o/decode-$n.txt
done
tar -C /tmp -czf $OUT/s100.tgz s100
