set -uo pipefail
# Run 146 (thirty-second session), tree 225c484 (read_bandwidth's shares read
# twice): what reading each share of K and V by two workgroups at once costs (the decode
# kernel's two query groups of a KV head for 5-8 query vectors), against reading it once.
o=/tmp/s146; mkdir -p $o
r="bash .device/on-device.sh"
for i in 1 2; do
  timeout 120 $r .device/read_bandwidth 16384 131072 > $o/read-$i.txt 2>&1
done
tar -C /tmp -czf $OUT/s146.tgz s146
cat $o/read-1.txt; grep -E "k-and-v-4-then-4" $o/read-2.txt
