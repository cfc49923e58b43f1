import net from "node:net"

/** A TCP port nothing listens on (on any interface), picked by the OS. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.once("error", reject)
    server.listen(0, "0.0.0.0", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}
