set -uo pipefail
# Run 196 (forty-first session), 2ffa573 (kernels as 0e15158): the driver's statistics (registers,
# binary size) of the decode kernels run 194 timed, to set the size of each kernel's code beside
# what a compute pass of its own costs it.
o=/tmp/s196; mkdir -p $o
r="bash .device/on-device.sh"
ps() { timeout 60 $r .device/pipeline_stats --q-len 1 "$@"; }
ps --heads 32,8 --kv-len 16384 --hdim 128 > $o/h32x8-d128-16384.txt 2>&1
ps --heads 32,8 --kv-len 131072 --hdim 128 > $o/h32x8-d128-131072.txt 2>&1
ps --heads 64,8 --kv-len 16384 --hdim 128 > $o/h64x8-d128-16384.txt 2>&1
ps --heads 64,8 --kv-len 16384 --hdim 64 > $o/h64x8-d64-16384.txt 2>&1
ps --heads 32,8 --kv-len 65536 --hdim 64 > $o/h32x8-d64-65536.txt 2>&1
ps --heads 32,8 --kv-len 65536 --hdim 256 > $o/h32x8-d256-65536.txt 2>&1
tar -C /tmp -czf $OUT/s196.tgz s196
cd $o
for f in *.txt; do echo "== $f"; grep -i -E "variant|register|binary|size|local|shared" $f | head -24; done
