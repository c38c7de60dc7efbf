#if canImport(Glibc)
  import Glibc
#endif

/// A TCP socket on 127.0.0.1 at a port the kernel picks: what every test server starts from.
public enum LoopbackSocket {
  /// Binds a new socket to a free port of 127.0.0.1 and listens on it with `backlog`; nil binds
  /// it only, so that connections to the port are refused. The caller closes the descriptor.
  public static func bind(listening backlog: Int32?) throws -> (descriptor: Int32, port: Int) {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw FixtureError("cannot open a socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
        Glibc.bind(socket, generic, length) == 0 && (backlog.map { listen(socket, $0) == 0 } ?? true)
          && getsockname(socket, generic, &length) == 0
      }
    }
    guard bound else {
      let reason = String(cString: strerror(errno))
      close(socket)
      throw FixtureError("cannot listen on 127.0.0.1: \(reason)")
    }
    return (socket, Int(UInt16(bigEndian: address.sin_port)))
  }
}
