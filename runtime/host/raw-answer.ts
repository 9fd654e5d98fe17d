// An answer written straight to a socket, where no ServerResponse exists (a client error,
// a refused connection or upgrade), then the socket destroyed: ending it only half-closes
// it, and a client that never closes its side would keep the descriptor for as long as it
// likes. It gets lastAnswerGraceMs to take the answer.
import type { Duplex } from 'node:stream'

const lastAnswerGraceMs = 2_000

export function answerRaw(socket: Duplex, status: number, reason: string, body: Record<string, unknown>): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const text = JSON.stringify(body)
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    () => socket.destroy(),
  )
  setTimeout(() => socket.destroy(), lastAnswerGraceMs).unref()
}
