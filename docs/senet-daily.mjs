// The throws of Senet's game of the day, in plain JavaScript (no dependencies).
// This is the reference for front ends; the Rust engine's tests run it under
// Node.js and compare it with the engine, throw for throw.
//
//   node docs/senet-daily.mjs 2026-11-30 50   -> [2,1,1,5,...]
//
// The algorithm (docs/senet.md): seed = FNV-1a 64 of "senet:YYYY-MM-DD";
// SplitMix64 from the seed; each output's top four bits are the four sticks,
// the throw is the number of light faces (1 bits), or 5 when there is none.

const MASK = (1n << 64n) - 1n;

/** FNV-1a, 64 bits, of a string's UTF-8 bytes. */
export function fnv1a64(text) {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & MASK;
  }
  return hash;
}

/** An endless SplitMix64 sequence from a 64-bit seed (a BigInt). */
export function* splitMix64(seed) {
  let state = seed & MASK;
  for (;;) {
    state = (state + 0x9e3779b97f4a7c15n) & MASK;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    yield z ^ (z >> 31n);
  }
}

/** The throw four sticks show for a 64-bit output: light faces counted, none = 5. */
export function throwFrom(value) {
  const sticks = Number(value >> 60n);
  const light = (sticks & 1) + ((sticks >> 1) & 1) + ((sticks >> 2) & 1) + ((sticks >> 3) & 1);
  return light === 0 ? 5 : light;
}

/** The first `count` throws of the game of the day `date` ("YYYY-MM-DD"). */
export function dailyThrows(date, count) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`${date} is not YYYY-MM-DD`);
  const throws = [];
  const generator = splitMix64(fnv1a64(`senet:${date}`));
  while (throws.length < count) throws.push(throwFrom(generator.next().value));
  return throws;
}

const invokedDirectly = process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop());
if (invokedDirectly) {
  const [date, count = '50'] = process.argv.slice(2);
  console.log(JSON.stringify(dailyThrows(date, Number(count))));
}
