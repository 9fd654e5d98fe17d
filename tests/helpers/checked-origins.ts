// Every answer a test reads with fetch from a server it started over real HTTP (a gateway
// process, an in-process gateway or HQ on a port) is held to that server's OpenAPI document
// by default (issue 44: "every response seen in the test suite validates against the
// document"). The helper that starts the server registers its origin (checkAnswersFrom);
// from then on this process's fetch checks each answer from that origin to an /api/ path or
// a documented one (answerProblem of ./documented-responses.ts), whatever the request was:
// deliberately bad requests still get the documented error answers. Other servers (webhook
// receivers, fakes, registries) are never checked. A mismatch throws from fetch, failing the
// test that made the call, and is written again when the process exits (with exit code 1),
// so a test that swallows fetch errors (a wait-until-up loop) still fails its file.
// A test that deliberately reads an answer outside the document (e.g. a deliberately broken
// route table) takes uncheckedFetch(reason) for those calls; the reason is mandatory.
import { answerProblem, type CheckedAnswer, type DescribedApi, documentProblem, gatewayApi } from './documented-responses.ts'

interface Registration {
  api: DescribedApi
  onProblem: ((problem: string) => void) | undefined
}

const registered = new Map<string, Registration>()
const loopback = new Set(['127.0.0.1', 'localhost', '[::1]', '::1'])
/** Problems found in this process, written again at exit. */
const problems: string[] = []
let plainFetch: typeof fetch | undefined

/** 'host:port' of an origin, loopback names counted as one. */
function keyOf(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80')
  return `${loopback.has(url.hostname) ? 'loopback' : url.hostname}:${port}`
}

function covered(api: DescribedApi, path: string): boolean {
  return path.startsWith('/api/') || api.templates.some(({ pattern }) => pattern.test(path))
}

function report(registration: Registration, problem: string | undefined): void {
  if (!problem) return
  if (registration.onProblem) return registration.onProblem(problem)
  problems.push(problem)
  throw new Error(problem)
}

const checkedFetch: typeof fetch = async (input, init) => {
  const response = await plainFetch!(input, init)
  const url = new URL(input instanceof Request ? input.url : String(input))
  const registration = registered.get(keyOf(url))
  if (!registration || !covered(registration.api, url.pathname)) return response
  const method = input instanceof Request ? input.method : (init?.method ?? 'GET')
  report(registration, await answerProblem({ method, url: url.href }, response, registration.api))
  return response
}

/**
 * The same check for an answer read by other means than this process's fetch (node:http, a
 * client process in a network namespace): throws when `url`'s origin is registered and the
 * answer is outside its document.
 */
export function checkAnswer(url: string, answer: Omit<CheckedAnswer, 'path'>): void {
  const parsed = new URL(url)
  const registration = registered.get(keyOf(parsed))
  if (!registration || !covered(registration.api, parsed.pathname)) return
  const problem = documentProblem({ ...answer, path: parsed.pathname }, registration.api)
  report(registration, problem && `Answer outside the OpenAPI document (${registration.api.name}): ${problem}`)
}

/**
 * Checks every answer fetch gets from `base` (e.g. http://127.0.0.1:8000) against `api`'s
 * document until the returned function is called (when the server stops: another server may
 * take its port). `onProblem` instead of throwing: for a test of this check itself.
 */
export function checkAnswersFrom(base: string, api: DescribedApi = gatewayApi, onProblem?: (problem: string) => void): () => void {
  if (!plainFetch) {
    plainFetch = globalThis.fetch
    globalThis.fetch = checkedFetch
    process.on('exit', () => {
      if (problems.length === 0) return
      process.stderr.write(`Answers outside the OpenAPI document (tests/helpers/checked-origins.ts):\n${problems.join('\n')}\n`)
      process.exitCode = 1
    })
  }
  const key = keyOf(new URL(base))
  const registration = { api, onProblem }
  registered.set(key, registration)
  return () => {
    if (registered.get(key) === registration) registered.delete(key)
  }
}

/** The problems found so far, taken out (for a test of this check: it would otherwise fail its file at exit). */
export function takeProblems(): string[] {
  return problems.splice(0)
}

/**
 * fetch without the check, for a test that deliberately reads answers outside the document;
 * `reason` says why (it is required so that each exception is explained where it is made).
 */
export function uncheckedFetch(reason: string): typeof fetch {
  if (reason.trim().length < 10) throw new Error('uncheckedFetch needs the reason the answers it reads are outside the document')
  return (input, init) => (plainFetch ?? globalThis.fetch)(input, init)
}
