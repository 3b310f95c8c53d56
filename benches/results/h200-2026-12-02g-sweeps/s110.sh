set -uo pipefail
# Run 110: the read-only yardstick (examples/read_bandwidth) in the decode kernel's access
# patterns: one stream with 8 or 4 loads a thread in flight, K and V streams 4 + 4 together,
# and V's 4 asked for once K's 4 arrive. Twice.
o=/tmp/s110; mkdir -p $o
for i in 1 2; do timeout 120 bash .device/on-device.sh .device/read_bandwidth 4096 16384 32768 131072 > $o/read-$i.txt 2>&1; done
tar -C /tmp -czf $OUT/s110.tgz s110
cat $o/read-1.txt $o/read-2.txt
