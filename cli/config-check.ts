import { checkConfigOrExit } from "@/lib/server/config-check";

// Imported by cli/main.ts before the commands: the whole configuration is checked as this module
// loads, before the modules imported after it read it (lib/log.ts does as it loads). A bad
// variable is a failure the user can fix: one `error: NAME: …` line each, exit code 1.
checkConfigOrExit(1);
