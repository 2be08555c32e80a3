// lib/seed: Demo and synthetic records for the demo start and the benches. Its face
// (docs/decisions/0049-modules-in-order.md): what other code may import of it.

export { DEMO_CREDENTIALS_FILE, demoCredentials } from "./demo-credentials";
export { type DemoCredentials, seedDemo } from "./demo";
