import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// `host __worker PARENT-PID PROTOCOL`: a worker process, serving one feature instance through
/// the memory on descriptor 5, with the socket to the host on descriptor 3 (see `WorkerLaunch`).
/// The host starts `host-worker` where it is built beside it, this where it is not. Started by
/// the host, never by a person.
struct WorkerCommand {
  let console: Console

  func run(_ arguments: ParsedArguments) throws(HostError) -> Int32 {
    switch WorkerLaunch.parent(arguments.positionals, executable: "host __worker") {
    case .success(let parent):
      WorkerServer.serve(
        descriptor: WorkerServer.socketDescriptor, channelDescriptor: WorkerServer.channelDescriptor, parent: parent)
    case .failure(let refusal):
      console.report(HostError(refusal.message, help: refusal.help))
      return refusal.status
    }
  }
}

/// `--isolation process|none` and `--call-timeout`, as run, the main flow, validate and check read
/// them.
enum Isolation: String {
  case process, none

  /// The environment variable that sets the default; the flag wins.
  static let variable = "FEATUREHOST_ISOLATION"

  /// The flag's value, else the environment's, else `process`.
  static func chosen(_ arguments: ParsedArguments) throws(HostError) -> Isolation {
    if let flag = arguments.text(CommandTable.Isolation.isolation), let isolation = Isolation(rawValue: flag) {
      return isolation
    }
    guard let raw = getenv(variable) else { return .process }
    let value = String(cString: raw)
    guard let isolation = Isolation(rawValue: value) else {
      throw .usage(
        "\(variable)='\(value)' is not an isolation", help: "set it to 'process' or 'none', or unset it")
    }
    return isolation
  }

  /// Where the instances of a run go.
  static func factory(_ arguments: ParsedArguments) throws(HostError) -> InstanceFactory {
    switch try chosen(arguments) {
    case .none: return .inProcess
    case .process: return try workerFactory(arguments)
    }
  }

  /// Instances in workers, with the call timeout and memory the options give (whatever isolation
  /// they choose: exploring in process shrinks a hang in workers).
  static func workerFactory(_ arguments: ParsedArguments) throws(HostError) -> InstanceFactory {
    let timeout =
      arguments.seconds(CommandTable.Isolation.callTimeout) ?? RunSettingCatalogue.callTimeout.defaultSeconds
    var sandbox = SandboxSettings()
    if let bytes = arguments.size(CommandTable.Isolation.maxMemory) { sandbox.maxMemory = bytes }
    return .worker(
      executable: try OwnExecutable.required("to run a worker process"), callTimeout: timeout, sandbox: sandbox)
  }

}
