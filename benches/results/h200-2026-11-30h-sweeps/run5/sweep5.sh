set -uo pipefail
o=/tmp/s5; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
for n in 1 2 4; do
  WGPU_SDPA_TUNE=coop_kv_splits=$n $new bench --fused-only --dtype f32 --heads 32,8 --len 256,512 --kv-len 4096,16384,65536 --hdim 128 > $o/A-f32-d128-s$n.txt 2>&1
  WGPU_SDPA_TUNE=coop_kv_splits=$n $new bench --fused-only --dtype f32 --heads 32,8 --len 256 --kv-len 4096,16384,65536 --hdim 64 > $o/A-f32-d64-s$n.txt 2>&1
done
for n in 1 2; do
  WGPU_SDPA_TUNE=coop_kv_splits=$n $new bench --fused-only --dtype f16 --heads 32,8 --len 512 --kv-len 4096,16384,65536 --hdim 128 > $o/B-f16-d128-s$n.txt 2>&1
done
$new bench --fused-only --dtype f16 --heads 32,8 --len 512 --kv-len 4096,16384,65536 --hdim 128 > $o/B-f16-d128-default.txt 2>&1
c1="--fused-only --dtype f32 --heads 32,8 --len 40,64,128,192 --kv-len 4096,16384,65536 --hdim 64,80"
c2="--fused-only --dtype f32 --heads 32,8 --len 64,128,192 --kv-len 4096,16384,65536 --hdim 128"
$new bench $c1 > $o/C-d64-80-default.txt 2>&1
WGPU_SDPA_TUNE=split_min_q=32 $new bench $c1 > $o/C-d64-80-coop.txt 2>&1
$new bench $c2 > $o/C-d128-default.txt 2>&1
WGPU_SDPA_TUNE=split_min_q=32 $new bench $c2 > $o/C-d128-coop.txt 2>&1
tar -C /tmp -czf $OUT/s5.tgz s5
cd $o
for f in A-*.txt B-*.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $2,$3,$11}')"; done
for p in d64-80 d128; do paste -d' ' <(grep -E '^ *1, ' C-$p-default.txt | awk -F, '{printf "%s x %s d%s def %s %s\n", $2,$3,$4,$11,substr($NF,1,24)}') <(grep -E '^ *1, ' C-$p-coop.txt | awk -F, '{printf "coop %s %s\n", $11, substr($NF,1,70)}'); done
