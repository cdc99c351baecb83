// bench: 1,000,000 generators, each started and suspended at a yield, all kept; prints spawned
function* waiter() {
  yield;
}
var parked = []; // a global: still reachable when the script ends
function main() {
  const n = 1000000;
  for (let i = 0; i < n; i++) {
    const g = waiter();
    g.next();
    parked.push(g);
  }
  print("spawned");
}
main();
