import CSandbox

#if canImport(Glibc)
  import Glibc
#endif

/// Confines a plugin's worker process before the plugin is loaded (Sources/CSandbox): resource
/// limits, no new privileges, Landlock for files and TCP ports, a seccomp filter that stops the
/// worker on exec, fork, ptrace, mount and the like, and notices of what was refused.
///
/// Applying it cannot be undone; it is meant for the worker, never for the host itself.
public enum Sandbox {
  /// The sanitizer this process was built with (`thread` or `address`), found by its runtime's
  /// entry point, which the executable exports; nil in an ordinary build.
  public static let sanitizer: String? = {
    // nil handle: RTLD_DEFAULT, every object loaded.
    if dlsym(nil, "__tsan_init") != nil { return "thread" }
    if dlsym(nil, "__asan_init") != nil { return "address" }
    return nil
  }()

  /// The protections `simulateVariable` asks to act as missing: `no-landlock`, `no-seccomp`
  /// (comma-separated), to see a plugin and the host's warnings as a system without them would.
  public static let simulateVariable = "FEATUREHOST_SANDBOX_SIMULATE"

  /// What `simulateVariable` asks to act as missing in this process's environment.
  public static var simulatedMissing: (landlock: Bool, seccomp: Bool) {
    let words = (getenv(simulateVariable).map { String(cString: $0) } ?? "").split(separator: ",")
    return (words.contains("no-landlock"), words.contains("no-seccomp"))
  }

  private static var simulateBits: Int32 {
    let missing = simulatedMissing
    return (missing.landlock ? Int32(FH_SANDBOX_SIMULATE_NO_LANDLOCK) : 0)
      | (missing.seccomp ? Int32(FH_SANDBOX_SIMULATE_NO_SECCOMP) : 0)
  }

  /// The running kernel's Landlock ABI version; 0 when it has none.
  public static var landlockABI: Int { Int(fh_sandbox_landlock_abi()) }

  /// Confines this process to `policy`, for the rest of its life.
  ///
  /// Call it on the process's only thread, before anything starts another: it refuses to run
  /// otherwise. `notice` is called on the sandbox's own supervisor thread, once per refusal,
  /// before the refused call returns to the plugin: it must not wait for the plugin's threads.
  /// A kernel without Landlock or without seccomp user notification is no error: the report
  /// says what is off. Throws when the process could not be confined; no plugin may then run.
  public static func apply(
    _ policy: SandboxPolicy, notice: @escaping @Sendable (SandboxRefusal) -> Void
  ) throws(HostError) -> SandboxReport {
    // Retained for the life of the process once the supervisor has it: it is never stopped.
    let box = Unmanaged.passRetained(NoticeBox(notice))
    var report = fh_sandbox_report()
    var error = [CChar](repeating: 0, count: 512)
    let status = withCStrings(policy.readPaths) { readPaths in
      withCStrings(policy.writePaths) { writePaths in
        policy.connectPorts.withUnsafeBufferPointer { ports in
          var settings = fh_sandbox_policy(
            read_paths: readPaths.baseAddress, read_count: readPaths.count,
            write_paths: writePaths.baseAddress, write_count: writePaths.count,
            connect_ports: ports.baseAddress, port_count: ports.count,
            max_memory: policy.maxMemory ?? 0, max_open_files: policy.maxOpenFiles,
            note_fd: policy.noteDescriptor, notice: forwardNotice, notice_context: box.toOpaque(),
            under_sanitizer: sanitizer == "thread"
              ? Int32(FH_SANDBOX_THREAD_SANITIZER) : sanitizer == "address" ? Int32(FH_SANDBOX_ADDRESS_SANITIZER) : 0,
            simulate: simulateBits)
          return fh_sandbox_apply(&settings, &report, &error, error.count)
        }
      }
    }
    guard status == 0 else {
      box.release()
      let message = String(decoding: error.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw HostError(
        "the plugin's sandbox could not be applied: \(message)",
        help: "the plugin was not run; the worker must apply the sandbox before it starts a thread, "
          + "on a Linux kernel with seccomp filters")
    }
    if report.notices == 0 { box.release() }
    let off = withUnsafeBytes(of: report.off) { bytes in
      String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
    return SandboxReport(
      landlockABI: Int(report.landlock_abi), noNewPrivileges: report.no_new_privs != 0,
      landlock: report.landlock != 0, seccomp: report.seccomp != 0, limits: report.limits != 0,
      notices: report.notices != 0, off: off.isEmpty ? nil : off)
  }

  /// `strings` as C strings, valid during `body`.
  private static func withCStrings<Result>(
    _ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> Result
  ) -> Result {
    let copies = strings.map { UnsafePointer(strdup($0)) }
    defer { for copy in copies { free(UnsafeMutablePointer(mutating: copy)) } }
    return copies.withUnsafeBufferPointer(body)
  }
}

/// The notice closure, behind the C callback's context pointer.
private final class NoticeBox: Sendable {
  let notice: @Sendable (SandboxRefusal) -> Void
  init(_ notice: @escaping @Sendable (SandboxRefusal) -> Void) { self.notice = notice }
}

/// The C callback: turns a refusal into a `SandboxRefusal` for the closure. [supervisor-thread]
private func forwardNotice(context: UnsafeMutableRawPointer?, kind: Int32, subject: UnsafePointer<CChar>?) {
  guard let context, let subject else { return }
  let refusalKind: SandboxRefusal.Kind
  switch Int(kind) {
  case Int(FH_SANDBOX_NOTICE_READ): refusalKind = .read
  case Int(FH_SANDBOX_NOTICE_WRITE): refusalKind = .write
  case Int(FH_SANDBOX_NOTICE_CONNECT): refusalKind = .connect
  case Int(FH_SANDBOX_NOTICE_BIND): refusalKind = .bind
  case Int(FH_SANDBOX_NOTICE_SOCKET): refusalKind = .socket
  default: return
  }
  let box = Unmanaged<NoticeBox>.fromOpaque(context).takeUnretainedValue()
  box.notice(SandboxRefusal(kind: refusalKind, subject: String(cString: subject)))
}

extension Sandbox {
  /// What this machine's kernel lets a worker's sandbox apply, one line each, for `host list
  /// --verbose`.
  public static func stateLines(_ settings: SandboxSettings) -> [String] {
    let landlock = simulatedMissing.landlock ? 0 : landlockABI
    let seccomp = simulatedMissing.seccomp ? 0 : fh_sandbox_seccomp_support()
    let memory = settings.maxMemory.map { "\(MemorySize.text($0)) of memory" } ?? "no memory limit"
    return [
      "sandbox: every worker, the scanner and the image children (--isolation none: no sandbox)",
      landlock >= 4
        ? "  landlock: on (ABI \(landlock)): files and TCP ports beyond the manifest's needs are refused"
        : landlock > 0
          ? "  landlock: files only (ABI \(landlock)); TCP ports are not confined (they need ABI 4, Linux 6.7)"
          : "  landlock: off (this kernel has none): files and TCP ports are not confined",
      seccomp > 0
        ? "  seccomp: on: exec, fork, ptrace, signals to other processes, mounts, bpf and keyrings stop the worker"
        : "  seccomp: off (this kernel has no seccomp filters)",
      seccomp > 1
        ? "  notices: on: each refusal is said once per feature and kind"
        : "  notices: off (they need seccomp user notification, Linux 5.0)",
      "  limits: \(memory) (--max-memory), \(settings.maxOpenFiles) open files, no core dumps, no new privileges",
    ]
  }
}
