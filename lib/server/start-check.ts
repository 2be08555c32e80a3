import { checkConfigOrExit } from "./config-check";

// Imported first by the console's start scripts (scripts/start.ts, scripts/serve.ts): the whole
// configuration is checked as this module loads, before the modules imported after it, some of
// which read the configuration as they load (lib/log.ts). A bad variable ends the process here,
// every one named.
checkConfigOrExit();
