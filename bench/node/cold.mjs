// Cold-start peer of `bunzai inspect card.png`: a fresh Node process imports Character Foundry,
// parses the card and prints its name.  The benchmark runs it as one process per measurement.
import { readFileSync } from "node:fs";
import { parseCard } from "@character-foundry/character-foundry";

const { card } = parseCard(readFileSync(process.argv[2]));
console.log(card.data.name);
