// Resolve one Starleader shot with a seed: the same dice, trace and outcome as
// `rulebook roll starleader.fire --input examples/starleader-fire.yaml --seed 7`.
import init, { roll } from "./pkg/rulebook_wasm.js";

await init(); // loads rulebook_wasm_bg.wasm beside the module

const inputs = { weapon: "Ghazi 10/7", range_hexes: 5, armor_rating: 2 };
const shot = JSON.parse(roll("starleader.fire", JSON.stringify(inputs), 7));

for (const step of shot.trace) {
  if (step.kind === "roll") {
    console.log(`roll ${step.label} ${step.dice}: [${step.faces.join(", ")}] = ${step.value}`);
  } else if (step.kind === "modifier") {
    console.log(`modifier ${step.name} ${step.value} [${step.cite ?? ""}]`);
  }
}
console.log(`${shot.outcome.result}, ${shot.outcome.damage} hits of damage`);

export default shot;
