# The benches' arithmetic over space-separated figures, sourced by each bench script.
# median / best: of the figures on standard input; ratio A B: A / B; ratios "A1 A2" "B1 B2":
# " A1/B1 A2/B2", each to two decimals.
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
best() { tr ' ' '\n' | grep -v '^$' | sort -g | tail -1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
ratios() { paste <(tr ' ' '\n' <<<"${1# }") <(tr ' ' '\n' <<<"${2# }") | awk '{ printf " %.2f", $1 / $2 }'; }
