import path from "node:path";
import { describeViolation, findBoundaryViolations } from "@/lib/build/client-boundary";

// `npm run lint` and `next build`: fails when a client component reaches a server module.
const root = path.resolve(import.meta.dirname, "..");
const violations = findBoundaryViolations(root);
for (const violation of violations) console.error(`client boundary: ${describeViolation(violation)}`);
if (violations.length) {
  console.error(
    `\n${violations.length} client component import chain(s) reach server code (docs/decisions/0012-one-vocabulary-one-way-in.md)`,
  );
  process.exit(1);
}
console.log("client boundary: no client component reaches server code");
