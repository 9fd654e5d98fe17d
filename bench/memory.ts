// npm run bench:memory — the memory benchmark on its own (bench/memory-bench.ts says what it
// measures); `npm run bench` runs it too, after the HTTP figures.
import { memoryBench } from './memory-bench.ts'

if (!(await memoryBench())) process.exitCode = 1
