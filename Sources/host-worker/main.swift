// Linked for the plugins: a Swift plugin needs it, and loaded after the sandbox its opens would
// each go through the sandbox's supervisor.
import Dispatch
import WorkerKit

#if canImport(Glibc)
  import Glibc
#endif

// `host-worker __worker PARENT-PID PROTOCOL`: serves one feature instance for the host process
// PARENT-PID, as `host __worker` does, but without Foundation and the rest of the host, so a
// worker starts in about half the time. `host-worker __scan PLUGIN.so`: the registry's scanner
// child, as `host __scan`; `host-worker __image ...`: an image child, as `host __image`. Started
// by the host, never by a person.

// As the host does: a state's megabytes go back to the system once freed (see LargeAllocations).
LargeAllocations.returnToSystemWhenFreed()
let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "__scan" { ScanChild.run(arguments[2]) }
if arguments.count > 1, arguments[1] == ImageChild.command { exit(ImageChild.run(Array(arguments.dropFirst(2)))) }
let given = arguments.count >= 2 && arguments[1] == "__worker" ? Array(arguments.dropFirst(2)) : []
switch WorkerLaunch.parent(given, executable: "host-worker") {
case .success(let parent):
  WorkerServer.serve(
    descriptor: WorkerServer.socketDescriptor, channelDescriptor: WorkerServer.channelDescriptor, parent: parent)
case .failure(let refusal):
  let text = "error: \(refusal.message)\nhelp: \(refusal.help)\n"
  _ = text.withCString { write(2, $0, strlen($0)) }
  exit(refusal.status)
}
