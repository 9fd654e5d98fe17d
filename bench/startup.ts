// npm run bench:startup — start-up to first answer under a CPU cap that models a Raspberry
// Pi 4 (bench/startup-capped.ts says how); `npm run bench` runs it too, after the memory figures.
import { startupBench } from './startup-capped.ts'

// Run alone, a skipped part is a failure to run it (the line on stderr says why).
if ((await startupBench()) !== true) process.exitCode = 1
