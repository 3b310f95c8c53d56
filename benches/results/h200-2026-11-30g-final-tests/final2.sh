set -uo pipefail
o=/tmp/final; mkdir -p $o
bash scripts/h200_bench.sh $o
tar -C /tmp -czf $OUT/final.tgz final
tail -2 $o/check.txt
