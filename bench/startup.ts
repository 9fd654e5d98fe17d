// npm run bench:startup — start-up to first answer under a CPU cap that models a Raspberry
// Pi 4 (bench/startup-capped.ts says how); `npm run bench` runs it too, after the memory figures.
import { startupBench } from './startup-capped.ts'

if (!(await startupBench())) process.exitCode = 1
