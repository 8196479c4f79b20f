// Seeded dice for the demo and the tests: a small generator (mulberry32),
// so a seed replays the same rolls, and a roll drawn with a rule set's odds.

/** A generator of uniform numbers in [0, 1) from a 32-bit seed. */
export function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A roll drawn with the odds of `rules.dice` (the `rules` answer). */
export function drawRoll(rules, random) {
  let x = random();
  for (const { roll, probability } of rules.dice) {
    if (x < probability) return roll;
    x -= probability;
  }
  return rules.dice.findLast((d) => d.probability > 0).roll;
}
