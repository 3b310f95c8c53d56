set -uo pipefail
o=/tmp/s12; mkdir -p $o
b="bench --fused-only --dtype f16 --hdim 64,128 --len 4096"
bash .device/on-device.sh .device/sdpa-old $b > $o/old.txt 2>&1
bash .device/on-device.sh .device/sdpa $b > $o/new.txt 2>&1
bash .device/on-device.sh .device/sdpa bench --fused-only --dtype f16 --hdim 64,128 --heads 32,8 --len 64,128,256 --kv-len 4096,16384 > $o/kvsplit.txt 2>&1
bash .device/on-device.sh .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
tar -C /tmp -czf $OUT/s12.tgz s12
