// bench: a 30,000,000-iteration while loop summing into a local; prints 449999985000000
function main() {
  let sum = 0;
  let i = 0;
  while (i < 30000000) {
    sum += i;
    i += 1;
  }
  print(sum);
}
main();
