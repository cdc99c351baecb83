// bench: 1,000,000 round trips between the caller and a generator (next/yield); prints 1000000
function* ponger() {
  let v = yield 0;
  while (true) {
    v = yield v + 1;
  }
}
function main() {
  const n = 1000000;
  const g = ponger();
  g.next();
  let v = 0;
  for (let i = 0; i < n; i++) {
    v = g.next(v).value;
  }
  print(v);
}
main();
