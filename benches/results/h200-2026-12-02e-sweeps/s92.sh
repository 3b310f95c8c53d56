set -uo pipefail
# Run 92: V's rows clamped by the planner (auto) against decode_vc=0 on other decode shapes that
# read K in whole lines: 2 query rows of 32/8 heads, 4 query rows of 32/32, batch 4 of 32/8,
# 64/8 heads (two query groups a KV head); 5 rounds interleaved.
o=/tmp/s92; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
declare -A S=( [q2]="--heads 32,8 --len 2" [mha4]="--heads 32,32 --len 4" [b4]="--heads 32,8 --batch 4 --len 1" [g16]="--heads 64,8 --len 1" )
declare -A V=( [auto]="" [novc]="decode_vc=0" )
for i in 1 2 3 4 5; do
  for s in q2 mha4 b4 g16; do
    for n in auto novc; do
      WGPU_SDPA_TUNE="${V[$n]}" timeout 100 $r .device/sdpa bench --dtype f16 --hdim 128 ${S[$s]} --kv-len 4096,16384,65536 --fused-only > $o/$s-$n-$i.txt 2>&1
    done
  done
done
echo "benches at $SECONDS s"
tar -C /tmp -czf $OUT/s92.tgz s92
cd $o
for s in q2 mha4 b4 g16; do grep -E '^ *[0-9]+, ' $s-auto-1.txt | awk -F, -v s=$s '{print s, $3, $NF}'; done
for s in q2 mha4 b4 g16; do for n in auto novc; do for f in $s-$n-[1-5].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done; done; done
