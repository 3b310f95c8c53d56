set -uo pipefail
# .device/sdpa-old: the sdpa binary of the tree before the KV split (git stash; cargo build)
o=/tmp/s11; mkdir -p $o
b="bench --fused-only --dtype f16 --hdim 64,128 --len 4096"
for i in 1 2; do
  bash .device/on-device.sh .device/sdpa-old $b > $o/old-$i.txt 2>&1
  bash .device/on-device.sh .device/sdpa $b > $o/new-$i.txt 2>&1
done
bash .device/on-device.sh .device/pipeline_stats --q-len 4096 --hdim 64 --dtype f16 > $o/registers-new.txt 2>&1
tar -C /tmp -czf $OUT/s11.tgz s11
