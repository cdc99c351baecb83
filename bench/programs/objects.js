// bench: 1,000,000 small objects (a class with two fields) kept in an array, then summed; prints 500000500000
class Pair {
  constructor(a, b) {
    this.a = a;
    this.b = b;
  }
}
function main() {
  const n = 1000000;
  const ps = new Array(n);
  for (let i = 0; i < n; i++) {
    ps[i] = new Pair(i, 1);
  }
  let sum = 0;
  for (let j = 0; j < n; j++) {
    const p = ps[j];
    sum += p.a + p.b;
  }
  print(sum);
}
main();
