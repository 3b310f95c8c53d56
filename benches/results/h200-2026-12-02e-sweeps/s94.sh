set -uo pipefail
# Run 94: the final tree (367a8b8, the kernels of runs 91-93) on another start of the machine:
# 12 calls each of the d128 rows, interleaved with decode_vc=0.
o=/tmp/s94; mkdir -p $o
r="bash .device/on-device.sh"
declare -A V=( [auto]="" [novc]="decode_vc=0" )
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 1024,4096,16384,32768,131072 --fused-only"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
  for n in auto novc; do
    WGPU_SDPA_TUNE="${V[$n]}" $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s94.tgz s94
cd $o
for n in auto novc; do for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $n-$i.txt | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done; done
