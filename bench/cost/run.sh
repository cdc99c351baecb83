#!/bin/sh
# The cost model's figures (docs/performance.md): instructions per
# operation, counted by cachegrind (independent of the machine's load),
# for nlangdbg run and C Lua 5.4 on the same programs.
#
#   cd bench/cost && ./run.sh          # needs valgrind and lua5.4
#
# A loop program's cost per operation is its count minus the baseline
# loop's (base.n / base.lua: the same 10M iterations without the
# operation), divided by 10M. The thread programs (../programs/
# pingpong and park) are counted whole, minus an empty program, divided
# by their 1M round trips or threads; park also with the collector off
# (GOGC=off; Lua: collectgarbage("stop")), to tell the mutator's share
# from the collector's. The collector's cost of a parked thread at each
# cycle is counted with 100,000 threads parked: 11 full collections
# (runtime.GC in BenchmarkParkedGC100k; Lua: collectgarbage()) less 1,
# divided by 10 and by the threads.
set -e
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd ../.. && go build -o "$tmp/nlangdbg" ./cmd/nlangdbg && go test -c -o "$tmp/nlangdbg.test" ./cmd/nlangdbg)
printf 'int main() {\n    return 0;\n}\n' > "$tmp/empty.n"
: > "$tmp/empty.lua"
sed 's/^local n = 1000000$/collectgarbage("stop")\nlocal n = 1000000/' ../programs/park.lua > "$tmp/park_nogc.lua"
for k in 0 10; do # 100,000 parked coroutines, then k full collections
	sed 's/^local n = 1000000$/local n = 100000/; s/^print("spawned")$/collectgarbage()\nfor i = 1, '$k' do collectgarbage() end\nprint("spawned")/' \
		../programs/park.lua > "$tmp/parked_gc$k.lua"
done

# count CMD...: the instructions cachegrind counts for a whole process
count() {
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		sed -n 's/.*I *refs: *//p' | tr -d ,
}
nl() { count "$tmp/nlangdbg" run "$@"; }
lua() { count lua5.4 "$@"; }

nbase=$(nl base.n); lbase=$(lua base.lua)
nempty=$(nl "$tmp/empty.n"); lempty=$(lua "$tmp/empty.lua")
per() { echo "($1 - $2) / $3" | bc; }

echo "| operation | nlangdbg | C Lua 5.4 | NLang / Lua |"
echo "| --- | ---: | ---: | ---: |"
row() { # title nlang lua
	echo "| $1 | $2 | $3 | $(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.2f", a / b }')× |"
}
row "baseline loop iteration (add into a local, increment, compare, branch)" $(per "$nbase" "$nempty" 10000000) $(per "$lbase" "$lempty" 10000000)
for op in call field switch; do
	row "$op (over the baseline iteration)" $(per "$(nl $op.n)" "$nbase" 10000000) $(per "$(lua $op.lua)" "$lbase" 10000000)
done
row "channel round trip (2 sends, 2 receives, 2 thread switches; Lua: resume + yield)" \
	$(per "$(nl ../programs/pingpong.n)" "$nempty" 1000000) $(per "$(lua ../programs/pingpong.lua)" "$lempty" 1000000)
row "spawn and park a thread, with the collector (Lua: create + resume to a yield)" \
	$(per "$(nl ../programs/park.n)" "$nempty" 1000000) $(per "$(lua ../programs/park.lua)" "$lempty" 1000000)
row "the same, collector off" \
	$(per "$(GOGC=off nl ../programs/park.n)" "$nempty" 1000000) $(per "$(lua "$tmp/park_nogc.lua")" "$lempty" 1000000)
gcbench() { # benchtime
	(cd ../../cmd/nlangdbg && count "$tmp/nlangdbg.test" -test.run '^$' -test.bench '^BenchmarkParkedGC100k$' -test.benchtime "$1")
}
row "a parked thread, one full collection (100,000 parked)" \
	$(per "$(gcbench 11x)" "$(gcbench 1x)" 1000000) $(per "$(lua "$tmp/parked_gc10.lua")" "$(lua "$tmp/parked_gc0.lua")" 1000000)
