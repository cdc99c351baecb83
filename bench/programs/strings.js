// bench: a 200,000-piece string by concatenation (500 chunks of 400 one-digit pieces); prints 200000
function main() {
  let s = "";
  for (let c = 0; c < 500; c++) {
    let chunk = "";
    for (let i = 0; i < 400; i++) {
      chunk = chunk + (i % 10);
    }
    s = s + chunk;
  }
  print(s.length);
}
main();
