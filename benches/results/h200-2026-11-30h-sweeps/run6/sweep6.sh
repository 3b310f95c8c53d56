set -uo pipefail
o=/tmp/s6; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
a="--fused-only --dtype f16 --heads 32,8 --len 64,128,256,512 --kv-len 4096,16384,65536 --hdim 64,128"
b="--fused-only --dtype f32 --heads 32,8 --len 64,128,192,256,512 --kv-len 4096,16384,65536 --hdim 64,128"
for rule in old new; do
  k="split_min_q=33"; [ $rule = old ] && k="$k,kv_split_threads=0"
  WGPU_SDPA_TUNE=$k $new bench $a > $o/f16-$rule.txt 2>&1
  WGPU_SDPA_TUNE=$k $new bench $b > $o/f32-$rule.txt 2>&1
done
tar -C /tmp -czf $OUT/s6.tgz s6
cd $o
for t in f16 f32; do paste -d' ' <(grep -E '^ *1, ' $t-old.txt | awk -F, '{printf "%s %s x %s d%s old %s\n", $8,$2,$3,$4,$11}') <(grep -E '^ *1, ' $t-new.txt | awk -F, '{printf "new %s %s\n", $11, substr($NF,1,75)}'); done
